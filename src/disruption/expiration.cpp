#include "fleetsim/disruption/expiration.hpp"

namespace fleetsim {

void expire_nodes(const Cluster& cluster, const std::vector<NodePool>& pools,
                  NodeTermination& termination, SimTime now) {
  for (NodeId id : std::vector<NodeId>(cluster.active_nodes())) {
    const Node& n = cluster.node(id);
    const NodePoolOwner* owner = n.nodepool();
    if (owner == nullptr) continue;  // a node group's: Karpenter does not expire it
    const NodePool& pool = pools[owner->pool];
    if (!n.is_live() || !pool.expire_after || now - n.created < *pool.expire_after) continue;
    termination.delete_node(n.id, NodeDeletionReason::Expired,
                            {.termination_grace_period = pool.termination_grace_period});
  }
}

}  // namespace fleetsim
