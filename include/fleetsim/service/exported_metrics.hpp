// The metric series a service exports in a run for autoscalers to read: the DCGM exporter's and
// vLLM's names per pod, and fleetsim's own per service.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace fleetsim {

// The DCGM exporter's (default-counters.csv): GPU_UTIL in percent, per whole GPU only (DCGM does
// not support it for MIG instances: dcgm-exporter#105, #216, #430); GR_ENGINE_ACTIVE, the
// graphics engine's active share (0-1), per whole GPU and per MIG instance, whose series carry
// GPU_I_PROFILE and GPU_I_ID.
inline constexpr std::string_view kGpuUtilMetric = "DCGM_FI_DEV_GPU_UTIL";
inline constexpr std::string_view kGrEngineActiveMetric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
inline constexpr std::string_view kRequestsRunningMetric = "vllm:num_requests_running";
inline constexpr std::string_view kRequestsWaitingMetric = "vllm:num_requests_waiting";
inline constexpr std::string_view kRequestSuccessMetric = "vllm:request_success_total";
// Under the engine model only: the share (0-1) of the pod's KV cache blocks in use, by both the
// name most HPA/KEDA manifests use (vLLM up to 0.10) and the one vLLM's V1 engine exports.
inline constexpr std::string_view kGpuCacheUsageMetric = "vllm:gpu_cache_usage_perc";
inline constexpr std::string_view kKvCacheUsageMetric = "vllm:kv_cache_usage_perc";
// Per service, as a gateway in front of the pods sees it; they exist with no pod at all, so a
// ScaledObject can activate a Deployment from zero on them.
inline constexpr std::string_view kServiceRequestsMetric = "fleetsim_service_requests_total";
inline constexpr std::string_view kServiceQueueMetric = "fleetsim_service_queue_length";

inline constexpr std::array<std::string_view, 9> kSimulatedMetrics{
    kGpuUtilMetric,         kGrEngineActiveMetric,  kRequestsRunningMetric,
    kRequestsWaitingMetric, kRequestSuccessMetric,  kGpuCacheUsageMetric,
    kKvCacheUsageMetric,    kServiceRequestsMetric, kServiceQueueMetric};

bool is_simulated_metric(std::string_view name);

// The simulated metric that means what an exporter's `name` likely means, judged by the words in
// it (a queue for "…queue…", "…waiting…" or "…pending…"; KV-cache use for "…kv…" or "…cache…";
// GPU utilization for "…gpu…util…"), for
// the hint to alias one to the other; nullopt when the name says nothing recognisable.
std::optional<std::string_view> same_meaning_metric(std::string_view name);

}  // namespace fleetsim
