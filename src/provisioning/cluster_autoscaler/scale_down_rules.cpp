#include "fleetsim/provisioning/cluster_autoscaler/scale_down_rules.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

// The GPUs utils/gpu/gpu.go counts (GPUVendorResourceNames): NVIDIA, AMD and Gaudi; not Neuron.
std::int64_t vendor_gpus(const Resources& r) {
  return r[resource::kNvidiaGpu] + r[resource::kAmdGpu] + r[resource::kGaudi];
}

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

NodeUtilization node_utilization(const Node& node, const Catalog& catalog, const Resources& extra) {
  const Resources requested = node.requested + node.daemon_overhead + extra;
  if (vendor_gpus(catalog.types()[node.type].capacity) > 0) {
    return {.value = share(vendor_gpus(requested), vendor_gpus(node.allocatable)), .gpu = true};
  }
  return {.value = std::max(share(requested.cpu_millis(), node.allocatable.cpu_millis()),
                            share(requested.memory_bytes(), node.allocatable.memory_bytes())),
          .gpu = false};
}

std::optional<std::string> blocks_scale_down(const Pod& pod, WorkloadKind kind,
                                             const PodDisruptionBudgets& pdbs,
                                             const ClusterAutoscalerSettings& settings,
                                             SimTime now) {
  if (pod.terminating) return std::nullopt;  // already going
  const std::string_view safe_to_evict = pod.spec->safe_to_evict;
  if (safe_to_evict == "true") return std::nullopt;
  if (kind == WorkloadKind::Pod) return "pod has no controller (NotReplicated)";
  if (settings.skip_nodes_with_system_pods && pod.namespace_name == "kube-system" &&
      pdbs.covering(pod).empty() && now - pod.created <= kBlockingSystemPodTimeout)
    return "kube-system pod without a PodDisruptionBudget (UnmovableKubeSystemPod)";
  if (safe_to_evict == "false") return "pod has safe-to-evict: \"false\"";
  if (auto pdb = pdbs.blocking(pod)) return "PodDisruptionBudget " + *pdb + " allows no eviction";
  return std::nullopt;
}

}  // namespace fleetsim
