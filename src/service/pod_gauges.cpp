#include "fleetsim/service/pod_gauges.hpp"

namespace fleetsim {

PodGauges pod_gauges(const ServingBackend& model, ReplicaId replica, bool engine,
                     std::uint64_t queue_share) {
  if (!engine) {
    return {.running = static_cast<double>(model.in_flight(replica)),
            .waiting = static_cast<double>(queue_share)};
  }
  const ReplicaLoad load = model.load(replica);
  return {.running = static_cast<double>(load.running),
          .waiting = static_cast<double>(queue_share + load.waiting),
          .kv_cache_usage = load.kv_cache_usage};
}

}  // namespace fleetsim
