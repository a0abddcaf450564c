// A kube-controller-manager controller's client-side rate limit: a token bucket (client-go's
// flowcontrol.NewTokenBucketRateLimiter, --kube-api-qps and --kube-api-burst), one per controller's
// client (kubernetes.NewForConfig makes one for each clientset), shared by its workers.
#pragma once

#include "fleetsim/core/time.hpp"
#include "fleetsim/workload/api_limits.hpp"

namespace fleetsim {

class ApiRateLimiter {
 public:
  explicit ApiRateLimiter(ApiLimits limits)
      : qps_(limits.qps), burst_(static_cast<double>(limits.burst)), tokens_(burst_) {}

  // Reserves the next token: the time the request may go (now when one is left). Requests are
  // served in order, as the limiter's Wait serves its callers.
  SimTime reserve(SimTime now);

 private:
  double qps_;
  double burst_;
  double tokens_;   // may go negative: tokens promised to waiting requests
  SimTime last_{};  // when tokens_ was last brought up to date
};

}  // namespace fleetsim
