#include "fleetsim/workload/api_rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim {

SimTime ApiRateLimiter::reserve(SimTime now) {
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + to_seconds(now - last_) * qps_);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return now;
  return saturating_add(now, from_seconds(-tokens_ / qps_));
}

}  // namespace fleetsim
