// The metric series a simulation produces for autoscalers to read (DCGM exporter and vLLM
// names per pod, and fleetsim's own per service), and the names a query or metric spec reads.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/autoscaling/promql.hpp"

namespace fleetsim {

inline constexpr std::string_view kGpuUtilMetric = "DCGM_FI_DEV_GPU_UTIL";
inline constexpr std::string_view kRequestsRunningMetric = "vllm:num_requests_running";
inline constexpr std::string_view kRequestsWaitingMetric = "vllm:num_requests_waiting";
inline constexpr std::string_view kRequestSuccessMetric = "vllm:request_success_total";
// Per service, as a gateway in front of the pods sees it; they exist with no pod at all, so a
// ScaledObject can activate a Deployment from zero on them.
inline constexpr std::string_view kServiceRequestsMetric = "fleetsim_service_requests_total";
inline constexpr std::string_view kServiceQueueMetric = "fleetsim_service_queue_length";

inline constexpr std::array<std::string_view, 6> kSimulatedMetrics{
    kGpuUtilMetric,        kRequestsRunningMetric, kRequestsWaitingMetric,
    kRequestSuccessMetric, kServiceRequestsMetric, kServiceQueueMetric};

bool is_simulated_metric(std::string_view name);
// [a-zA-Z_:][a-zA-Z0-9_:]*, Prometheus's metric name syntax.
bool is_prometheus_metric_name(std::string_view name);

// The metric names a query selects by name (`name{…}` or `{__name__="name"}`), in order; a
// selector that matches names by regex or negation names none.
std::vector<std::string> selected_metric_names(const PromQuery& query);

}  // namespace fleetsim
