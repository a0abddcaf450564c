// What the ServingModel tests feed it and read from it: requests at given times, and every
// outcome kept (tests only; the model itself allocates nothing per request).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "fleetsim/serving/serving_model.hpp"
#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim::test {

class VectorSource final : public TrafficSource {
 public:
  explicit VectorSource(std::vector<Request> requests) : requests_(std::move(requests)) {}
  std::optional<Request> next() override {
    if (next_ == requests_.size()) return std::nullopt;
    return requests_[next_++];
  }

 private:
  std::vector<Request> requests_;
  std::size_t next_ = 0;
};

class Recorder final : public ServingObserver {
 public:
  void on_request_done(const RequestOutcome& outcome) override { outcomes.push_back(outcome); }
  std::vector<RequestOutcome> outcomes;
};

}  // namespace fleetsim::test
