#include "fleetsim/service/exported_metrics.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "fleetsim/core/ascii_case.hpp"

namespace fleetsim {

bool is_simulated_metric(std::string_view name) {
  return std::find(kSimulatedMetrics.begin(), kSimulatedMetrics.end(), name) !=
         kSimulatedMetrics.end();
}

namespace {

bool mentions(std::string_view lowered, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return lowered.find(w) != std::string_view::npos; });
}

}  // namespace

std::optional<std::string_view> same_meaning_metric(std::string_view name) {
  const std::string lowered = ascii_lower(name.substr(0, 256));
  // Most specific first: "num_requests_waiting" is a queue before it is about requests.
  if (mentions(lowered, {"queue", "waiting", "pending", "backlog", "lag", "depth"}))
    return mentions(lowered, {"service", "gateway", "ingress"}) ? kServiceQueueMetric
                                                                : kRequestsWaitingMetric;
  // Before "gpu": "gpu_cache_usage" is about the KV cache, not the GPU's busy time.
  if (mentions(lowered, {"kv_cache", "kvcache", "cache_usage", "cache_util", "kv_usage"}))
    return kGpuCacheUsageMetric;
  if (mentions(lowered, {"gpu", "dcgm", "util", "sm_occupancy", "duty"})) return kGpuUtilMetric;
  if (mentions(lowered, {"running", "inflight", "in_flight", "concurren", "active", "batch"}))
    return kRequestsRunningMetric;
  if (mentions(lowered, {"request", "qps", "rps", "throughput", "success", "_total"}))
    return mentions(lowered, {"service", "gateway", "ingress"}) ? kServiceRequestsMetric
                                                                : kRequestSuccessMetric;
  return std::nullopt;
}

}  // namespace fleetsim
