#include "fleetsim/provisioning/karpenter/nodeclaim_launcher.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"

namespace fleetsim {

NodeClaimLauncher::NodeClaimLauncher(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                                     CloudProvider& cloud, SimDuration nomination_window)
    : sim_(sim),
      cluster_(cluster),
      bus_(bus),
      cloud_(cloud),
      names_(sim.rng("nodeclaim-names")),
      nomination_window_(nomination_window) {}

void NodeClaimLauncher::set_pools(const SchedulingContext& context,
                                  std::vector<PoolLaunchInfo> pools) {
  context_ = &context;
  pools_ = std::move(pools);
}

void NodeClaimLauncher::nominate_node(NodeId node) {
  claims_.hold_nominated(node, sim_.now() + nomination_window_);
}

void NodeClaimLauncher::nominate(PodId pod, NodeId node) {
  nominate_node(node);
  const Pod& p = cluster_.pod(pod);
  if (p.nominated == node) return;
  cluster_.nominate(pod, node);
  cluster_.set_pending_reason(pod, {});
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::PodNominated,
                     .node = node,
                     .pod = pod,
                     .workload = p.workload});
}

std::optional<NodeId> NodeClaimLauncher::launch(const NewNodeClaim& claim,
                                                const std::vector<PodId>& pending) {
  const PoolTemplate& tpl = context_->pools()[claim.pool];
  std::vector<InstanceTypeOption> options;
  options.reserve(claim.types.size());
  const GpuSetupContext& gpu = pools_[claim.pool].gpu;
  for (std::uint32_t t : claim.types)
    options.push_back({.type = t,
                       .allocatable = tpl.allocatable[t],
                       .daemon_overhead = tpl.daemon_overhead[t],
                       .gpu_setup = gpu.setup(context_->catalog().types()[t], tpl.pool->labels,
                                              tpl.allocatable[t])});
  Node node;
  node.name = names_.unique(tpl.pool->name);
  node.owner = NodePoolOwner{.pool = claim.pool, .name = tpl.pool->name};
  node.labels = Requirements::from_labels(claim.requirements.single_valued_labels());
  node.taints = tpl.pool->taints;
  const auto annotation = tpl.pool->annotations.find(kDoNotDisruptAnnotation);
  // The node check compares with "true" exactly (statenode.go ValidateNodeDisruptable).
  node.do_not_disrupt = annotation != tpl.pool->annotations.end() && annotation->second == "true";
  node.ebs_bytes = pools_[claim.pool].ebs_bytes;
  node.ebs_price_per_hour = pools_[claim.pool].ebs_price_per_hour;
  const std::optional<NodeId> id =
      cloud_.launch(LaunchRequest{.node = std::move(node),
                                  .requirements = claim.requirements,
                                  .types = options,
                                  .offering_allowed = tpl.offering_allowed,
                                  .price_by_offering = tpl.price_by_offering});
  if (!id) {
    std::string reason =
        fmt::format("nodepool {}: launch failed, no offering with capacity", tpl.pool->name);
    bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::LaunchFailed, .message = reason});
    // Their planned claim did not launch: any older nomination is stale too.
    for (std::uint32_t p : claim.pods) {
      if (pending[p] == kVirtualPod) continue;
      cluster_.set_pending_reason(pending[p], reason);
      cluster_.nominate(pending[p], kNoNode);
    }
    return std::nullopt;
  }
  claims_.add(*id, {.template_hash = template_hash(*tpl.pool),
                    .node_class_hash = pools_[claim.pool].node_class_hash});
  std::vector<std::string> names;
  names.reserve(claim.types.size());
  for (std::uint32_t t : claim.types) names.push_back(context_->catalog().types()[t].name);
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::NodeClaimCreated,
                     .node = *id,
                     .instance_types = names,
                     .pods = static_cast<std::int32_t>(std::count_if(
                         claim.pods.begin(), claim.pods.end(),
                         [&](std::uint32_t p) { return pending[p] != kVirtualPod; }))});
  // A CapacityBuffer's virtual pods are never nominated (scheduler.go: real pods only).
  for (std::uint32_t p : claim.pods)
    if (pending[p] != kVirtualPod) nominate(pending[p], *id);
  return id;
}

}  // namespace fleetsim
