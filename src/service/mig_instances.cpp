#include "fleetsim/service/mig_instances.hpp"

#include <algorithm>

namespace fleetsim {

MigInstanceSeat MigInstanceSeats::take(NodeId node, const NodeGpuSetup& setup, std::size_t profile,
                                       PodId pod) {
  const auto p = static_cast<std::uint32_t>(profile);
  const std::int64_t per_gpu = setup.mig[profile].per_gpu;
  const std::int64_t total = per_gpu * std::max<std::int64_t>(1, setup.physical_gpus);
  std::uint32_t index = 0;
  for (; static_cast<std::int64_t>(index) < total; ++index) {
    const bool taken = std::any_of(held_.begin(), held_.end(), [&](const Held& h) {
      return h.node == node && h.profile == p && h.index == index;
    });
    if (!taken) break;
  }
  // More pods than instances cannot be bound; a time-sliced instance's replicas share its index.
  if (static_cast<std::int64_t>(index) >= total) index = static_cast<std::uint32_t>(total - 1);
  held_.push_back({.node = node, .profile = p, .index = index, .pod = pod});
  std::int64_t before = 0;  // instances of the profiles listed before this one, on each GPU
  for (std::size_t i = 0; i < profile; ++i) before += setup.mig[i].per_gpu;
  return {.gpu = static_cast<std::uint32_t>(index / per_gpu),
          .instance_id = static_cast<std::uint32_t>(1 + before + index % per_gpu),
          .profile = setup.mig[profile].profile};
}

void MigInstanceSeats::release(PodId pod) {
  const auto it =
      std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.pod == pod; });
  if (it != held_.end()) held_.erase(it);
}

}  // namespace fleetsim
