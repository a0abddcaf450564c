#include "fleetsim/provisioning/cluster_autoscaler/gpu_readiness.hpp"

namespace fleetsim {

bool gpu_resource_unready(const Node& node, const ResourceRegistry& registry,
                          GpuReadinessCheck check) {
  if (!node.labels.has(kAwsGpuLabel)) return false;
  if (node.allocatable[resource::kNvidiaGpu] > 0) return false;
  if (check == GpuReadinessCheck::ResourceName) return true;
  // The device plugin advertises a MIG layout's or a sharing config's devices once configured,
  // whether or not a pod of the run names them (the registry holds only the names pods use).
  if (node.initialized && (!node.gpu_setup.mig.empty() || node.gpu_setup.replicated)) return false;
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const auto slot = static_cast<ResourceIndex>(i);
    if (registry.name(slot).starts_with("nvidia.com/") && node.allocatable[slot] > 0) return false;
  }
  return true;
}

CaNodeReadiness ca_node_readiness(const Node& node, bool ready, SimTime now,
                                  const ClusterAutoscalerSettings& s) {
  if (ready) return CaNodeReadiness::Ready;
  // node.CreationTimestamp + MaxNodeStartupTime after now: not started yet.
  if (node.created + s.max_node_startup_time > now) return CaNodeReadiness::NotStarted;
  return CaNodeReadiness::Unready;
}

bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const ClusterAutoscalerSettings& s) {
  return !(unready > s.ok_total_unready_count &&
           static_cast<double>(unready) >
               s.max_total_unready_percentage / 100.0 * static_cast<double>(nodes));
}

bool node_group_healthy(std::int64_t ready, std::int64_t unready, std::int64_t not_started,
                        std::int64_t acceptable_min, const ClusterAutoscalerSettings& s) {
  const std::int64_t unjustified = ready < acceptable_min ? acceptable_min - ready : 0;
  return !(unjustified > s.ok_total_unready_count &&
           static_cast<double>(unjustified) >
               s.max_total_unready_percentage / 100.0 *
                   static_cast<double>(ready + unready + not_started));
}

}  // namespace fleetsim
