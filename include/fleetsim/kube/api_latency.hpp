// How long a mutating Kubernetes API call takes (an Eviction POST, a pod's deletion, a NodeClaim's
// or Node's deletion): a seeded log-normal spread, or nothing.
#pragma once

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// A log-normal given by its median and 99th percentile; median 0 means every call is instant
// (`api_latency: zero`). Kubernetes publishes no latency, only the SIG-Scalability SLO
// (kubernetes/community sig-scalability/slos: single-object mutating calls, p99 <= 1 s per
// cluster-day). The default sits well inside it, at what the scalability tests measured for pod
// calls: kubemark density, kubernetes/kubernetes#25827, pods POST p50 18 ms / p99 110 ms and
// DELETE p50 13 ms / p99 199 ms; 1000-node kubemark, #24532, DELETE pods p50 24 ms.
struct ApiLatency {
  SimDuration median{0};
  SimDuration p99{0};  // >= median
  bool zero() const { return median == SimDuration{0}; }
};
inline constexpr ApiLatency kDefaultApiLatency{.median = millis(20), .p99 = millis(200)};

// One call's time after another, from the run's "api-latency" stream, in whole microseconds.
class ApiLatencyDraws {
 public:
  ApiLatencyDraws(const ApiLatency& latency, RngStream rng);
  // 0 under zero latency (and no draw is taken).
  SimDuration next();

 private:
  ApiLatency latency_;
  double sigma_ = 0.0;  // ln(p99 / median) / z(0.99)
  RngStream rng_;
};

}  // namespace fleetsim
