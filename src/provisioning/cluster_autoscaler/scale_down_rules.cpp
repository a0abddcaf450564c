#include "fleetsim/provisioning/cluster_autoscaler/scale_down_rules.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

NodeUtilization node_utilization(const Node& node, const Catalog& catalog, const Resources& extra) {
  const Resources requested = node.requested + node.daemon_overhead + extra;
  if (catalog.types()[node.type].capacity.gpus() > 0) {
    return {.value = share(requested.gpus(), node.allocatable.gpus()), .gpu = true};
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
