#include "fleetsim/disruption/expiration.hpp"

namespace fleetsim {

void expire_nodes(const Cluster& cluster, const std::vector<NodePool>& pools,
                  NodeTermination& termination, SimTime now) {
  for (NodeId id : std::vector<NodeId>(cluster.active_nodes())) {
    const Node& n = cluster.node(id);
    if (n.in_node_group()) continue;
    const NodePool& pool = pools[n.pool];
    if (!n.is_live() || !pool.expire_after || now - n.created < *pool.expire_after) continue;
    termination.delete_node(n.id, "expired",
                            {.termination_grace_period = pool.termination_grace_period});
  }
}

}  // namespace fleetsim
