#include "fleetsim/service/exported_metrics.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

// The alias hint for an exporter's metric names one of the same meaning (issue 25, item 7).
TEST_CASE("an exporter's metric is matched to the simulated metric of the same meaning",
          "[service]") {
  CHECK(same_meaning_metric("tgi_queue_size") == kRequestsWaitingMetric);
  CHECK(same_meaning_metric("vllm_num_requests_waiting") == kRequestsWaitingMetric);
  CHECK(same_meaning_metric("gateway_pending_requests") == kServiceQueueMetric);
  CHECK(same_meaning_metric("gpu_utilization") == kGpuUtilMetric);
  CHECK(same_meaning_metric("DCGM_FI_PROF_SM_ACTIVE") == kGpuUtilMetric);
  CHECK(same_meaning_metric("vllm_num_requests_running") == kRequestsRunningMetric);
  CHECK(same_meaning_metric("model_concurrency") == kRequestsRunningMetric);
  CHECK(same_meaning_metric("http_requests_total") == kRequestSuccessMetric);
  CHECK(same_meaning_metric("ingress_requests_per_second") == kServiceRequestsMetric);
  // KV-cache use before GPU: "gpu_cache_usage" is about the cache, not the GPU's busy time.
  CHECK(same_meaning_metric("sglang:token_usage_kv_cache") == kGpuCacheUsageMetric);
  CHECK(same_meaning_metric("tgi_gpu_cache_usage") == kGpuCacheUsageMetric);
  CHECK_FALSE(same_meaning_metric("temperature_celsius"));
}
