// Constant-rate traffic: one request every 1/rps seconds, deterministically.
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// Request i arrives at first_arrival + i / rps, rounded to the microsecond. Each arrival is
// computed from i, not by adding spacings, so rounding never accumulates: at 3 rps the arrivals
// are 0, 333333, 666667, 1000000 µs … exactly.
class ConstantSource final : public TrafficSource {
 public:
  ConstantSource(const ConstantConfig& config, RngStream rng);

  std::optional<Request> next() override;
  void fast_forward(SimTime t) override;
  std::optional<std::uint64_t> count_until(SimTime t) override;

 private:
  SimTime arrival_of(std::uint64_t i) const;

  double rps_;
  SimTime first_;
  std::uint64_t index_ = 0;
  TokenSampler tokens_;
  bool ended_ = false;
};

}  // namespace fleetsim
