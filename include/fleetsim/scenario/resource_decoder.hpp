// Decoding of Kubernetes resource lists (requests, limits, overhead, NodePool limits) into
// Resources slots, with the unit and plausibility rules of each resource.
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Plausibility bounds on what one pod may ask for. No EC2 instance comes close: the largest
// (u7in-32tb.224xlarge) has 896 vCPUs and 32 TiB of memory, and the GPU-richest have 8–16
// accelerators (p5.48xlarge, trn1.32xlarge). A value beyond them is a typo, not a workload.
inline constexpr std::int64_t kMaxPodCpuMillis = 100'000LL * 1000;              // 100,000 cores
inline constexpr std::int64_t kMaxPodBytes = 64LL * 1024 * 1024 * 1024 * 1024;  // 64 TiB
inline constexpr std::int64_t kMaxPodAccelerators = 64;
// Other extended resources (EFA interfaces, Neuron cores, MIG slices) count in the tens or
// hundreds per node; ten thousand leaves room for device plugins that advertise fine units.
inline constexpr std::int64_t kMaxPodExtendedUnits = 10'000;

enum class ResourceListUse {
  PodRequests,     // containers' requests and limits, pod overhead: bounded, `pods` not allowed
  NodePoolLimits,  // spec.limits: any resource, plus `nodes` as a count
};

struct ResourceList {
  Resources amounts;
  Resources set_mask;                 // 1 where the list names the resource
  std::optional<std::int64_t> nodes;  // NodePoolLimits only
};

// Decodes a mapping of resource names to quantities (null reads as empty). cpu is kept in
// millicores, memory, ephemeral-storage and hugepages in bytes, everything else as a whole count.
// Unknown extended resources are registered in ctx.resources.
ResourceList decode_resource_list(const YamlValue& map, DecodeContext& ctx, ResourceListUse use);

// Fails at `where` when a pod's total request breaks the plausibility bounds above.
void check_pod_request_bounds(const Resources& total, const ResourceRegistry& registry,
                              const YamlValue& where);

}  // namespace fleetsim
