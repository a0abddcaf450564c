#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"

namespace fleetsim {

ClusterSnapshot take_snapshot(const Cluster& cluster, const SchedulingContext& context) {
  ClusterSnapshot s;
  for (PodId id : cluster.pending_pods()) {
    const Pod& p = cluster.pod(id);
    s.pending.push_back(p.id);
    s.pods.push_back(PendingPod{.spec = p.spec,
                                .labels = p.labels,
                                .namespace_name = p.namespace_name,
                                .created_us = p.created.time_since_epoch().count(),
                                .uid = p.uid});
  }
  const std::size_t pool_count = context.pools().size();
  s.pool_usage.resize(pool_count);
  s.pool_nodes.resize(pool_count, 0);
  std::vector<std::uint32_t> node_slot(cluster.nodes().size(), UINT32_MAX);
  const auto& types = context.catalog().types();
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    if (!n.in_node_group()) {
      s.pool_usage[n.pool] += types[n.type].capacity;
      ++s.pool_nodes[n.pool];
    }
    if (!n.is_live()) continue;
    node_slot[n.id] = static_cast<std::uint32_t>(s.nodes.size());
    s.node_ids.push_back(n.id);
    s.nodes.push_back(ExistingNode{.name = n.name,
                                   .initialized = n.phase == NodePhase::Initialized,
                                   .pool = n.in_node_group() ? kNoPool : n.pool,
                                   .type = n.type,
                                   .zone = n.zone,
                                   .capacity_type = n.capacity_type,
                                   .labels = &n.labels,
                                   .taints = n.taints,
                                   .available = n.available()});
  }
  for (NodeId id : s.node_ids)
    for (PodId pod : cluster.node(id).pods) {
      const Pod& p = cluster.pod(pod);
      s.bound.push_back(BoundPod{.labels = p.labels,
                                 .spec = p.spec,
                                 .namespace_name = p.namespace_name,
                                 .node = node_slot[id]});
    }
  return s;
}

}  // namespace fleetsim
