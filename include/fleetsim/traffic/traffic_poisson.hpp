// Poisson traffic: exponential inter-arrival times at a fixed mean rate.
#pragma once

#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// A homogeneous Poisson process started at t = 0. Times accumulate in double microseconds and
// are rounded to the clock's microsecond on output.
class PoissonSource final : public TrafficSource {
 public:
  PoissonSource(const PoissonConfig& config, RngStream rng);

  std::optional<Request> next() override;
  // Exact: a Poisson process after t does not depend on its past.
  void fast_forward(SimTime t) override;
  std::optional<std::uint64_t> count_until(SimTime t) override;
  std::optional<double> expected_until(SimTime t) const override;

 private:
  double mean_gap_us_;  // 1e6 / rps
  double t_us_ = 0;
  RngStream rng_;
  TokenSampler tokens_;
  bool ended_ = false;
};

}  // namespace fleetsim
