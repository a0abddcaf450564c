#include "fleetsim/provisioning/solver_view.hpp"

namespace fleetsim {

PendingPod pending_pod(const Pod& pod, bool from_candidate) {
  return PendingPod{.spec = pod.spec,
                    .labels = pod.labels,
                    .namespace_name = pod.namespace_name,
                    .created_us = pod.created.time_since_epoch().count(),
                    .uid = pod.uid,
                    .from_candidate = from_candidate};
}

ExistingNode existing_node(const Node& node, const Resources& available) {
  const NodePoolOwner* owner = node.nodepool();
  return ExistingNode{.name = node.name,
                      .initialized = node.phase == NodePhase::Initialized,
                      .pool = owner != nullptr ? owner->pool : kNoPool,
                      .type = node.type,
                      .zone = node.zone,
                      .capacity_type = node.capacity_type,
                      .labels = &node.labels,
                      .taints = node.taints,
                      .available = available};
}

void add_bound_pods(const Cluster& cluster, std::span<const NodeId> nodes,
                    std::vector<BoundPod>& out) {
  std::size_t count = out.size();
  for (NodeId n : nodes) count += cluster.node(n).pods.size();
  out.reserve(count);
  for (std::uint32_t slot = 0; slot < nodes.size(); ++slot)
    for (PodId id : cluster.node(nodes[slot]).pods) {
      const Pod& p = cluster.pod(id);
      out.push_back(BoundPod{
          .labels = p.labels, .spec = p.spec, .namespace_name = p.namespace_name, .node = slot});
    }
}

}  // namespace fleetsim
