// Karpenter v1's expiration: NodeClaims past their pool's expireAfter.
#pragma once

#include <vector>

#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// Every live node older than its pool's expireAfter is deleted at once: no budgets, no
// validation, no do-not-disrupt check, as the v1 expiration controller does; its drain still
// waits for PDBs and do-not-disrupt pods until the pool's terminationGracePeriod.
void expire_nodes(const Cluster& cluster, const std::vector<NodePool>& pools,
                  NodeTermination& termination, SimTime now);

}  // namespace fleetsim
