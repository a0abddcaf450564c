#include "fleetsim/kube/api_latency.hpp"

#include <cmath>

namespace fleetsim {

namespace {
constexpr double kZ99 = 2.3263478740408408;  // the standard normal's 99th percentile
}  // namespace

ApiLatencyDraws::ApiLatencyDraws(const ApiLatency& latency, RngStream rng)
    : latency_(latency), rng_(rng) {
  if (!latency_.zero() && latency_.p99 > latency_.median)
    sigma_ = std::log(static_cast<double>(latency_.p99.count()) /
                      static_cast<double>(latency_.median.count())) /
             kZ99;
}

SimDuration ApiLatencyDraws::next() {
  if (latency_.zero()) return SimDuration{0};
  if (sigma_ == 0.0) return latency_.median;
  const double us = rng_.lognormal(static_cast<double>(latency_.median.count()), sigma_);
  return SimDuration{static_cast<SimDuration::rep>(std::llround(us))};
}

}  // namespace fleetsim
