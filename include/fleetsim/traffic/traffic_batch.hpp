// Batch traffic: every request at one instant, for offline throughput.
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// config.requests requests, all arriving at config.at, then nothing.
class BatchSource final : public TrafficSource {
 public:
  BatchSource(const BatchConfig& config, RngStream rng);

  std::optional<Request> next() override;

 private:
  SimTime at_;
  std::int64_t left_;
  TokenSampler tokens_;
};

}  // namespace fleetsim
