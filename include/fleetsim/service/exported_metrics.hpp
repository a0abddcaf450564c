// The metric series a service exports in a run for autoscalers to read: the DCGM exporter's and
// vLLM's names per pod, and fleetsim's own per service.
#pragma once

#include <array>
#include <optional>
#include <string_view>

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

// The simulated metric that means what an exporter's `name` likely means, judged by the words in
// it (a queue for "…queue…", "…waiting…" or "…pending…"; GPU utilization for "…gpu…util…"), for
// the hint to alias one to the other; nullopt when the name says nothing recognisable.
std::optional<std::string_view> same_meaning_metric(std::string_view name);

}  // namespace fleetsim
