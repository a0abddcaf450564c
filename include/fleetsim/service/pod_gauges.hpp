// What a serving pod's vLLM exporter shows at a scrape, from the serving model.
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/serving/serving_backend.hpp"

namespace fleetsim {

struct PodGauges {
  double running = 0;                    // vllm:num_requests_running
  double waiting = 0;                    // vllm:num_requests_waiting
  std::optional<double> kv_cache_usage;  // vllm:gpu_cache_usage_perc, 0-1; engine model only
};

// `queue_share` is the replica's share of the router's queue (vLLM queues per replica; fleetsim
// queues in front of them). Under the engine model the engine's own gauges: the requests it
// admitted run, and those it holds until KV-cache room frees wait beside the queue's share;
// otherwise every request on the replica runs.
PodGauges pod_gauges(const ServingBackend& model, ReplicaId replica, bool engine,
                     std::uint64_t queue_share);

}  // namespace fleetsim
