#include "fleetsim/k8s/capacity_buffer.hpp"

#include <algorithm>
#include <limits>

namespace fleetsim {

std::optional<std::int32_t> buffer_limit_replicas(const CapacityBufferLimits& limits,
                                                  const Resources& requests) {
  std::optional<std::int64_t> least;
  for (ResourceIndex r = 0; r < resource::kMaxResources; ++r) {
    if (limits.set_mask[r] == 0 || requests[r] <= 0) continue;
    const std::int64_t n = std::max<std::int64_t>(limits.values[r], 0) / requests[r];
    least = least ? std::min(*least, n) : n;
  }
  if (!least) return std::nullopt;
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(*least, std::numeric_limits<std::int32_t>::max()));
}

std::int32_t buffer_percentage_replicas(std::int32_t scalable_replicas, std::int32_t percentage) {
  // Integer ceil of scalable × percentage / 100: exact where upstream's float64 is.
  const std::int64_t product = std::int64_t{scalable_replicas} * percentage;
  std::int64_t n = product > 0 ? (product + 99) / 100 : 0;
  if (n < 1 && percentage > 0 && scalable_replicas > 0) n = 1;
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(n, std::numeric_limits<std::int32_t>::max()));
}

std::int32_t buffer_replicas(const CapacityBuffer& buffer, const Resources& pod_requests,
                             std::optional<std::int32_t> scalable_replicas) {
  std::optional<std::int32_t> desired;
  if (!buffer.pod_template_ref && buffer.percentage && scalable_replicas && *scalable_replicas > 0)
    desired = buffer_percentage_replicas(*scalable_replicas, *buffer.percentage);
  if (buffer.replicas) desired = desired ? std::max(*desired, *buffer.replicas) : *buffer.replicas;
  if (buffer.limits) {
    if (std::optional<std::int32_t> cap = buffer_limit_replicas(*buffer.limits, pod_requests))
      return desired ? std::min(*desired, *cap) : *cap;
  }
  return desired.value_or(0);
}

}  // namespace fleetsim
