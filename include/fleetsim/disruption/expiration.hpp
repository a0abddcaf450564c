// Karpenter v1's expiration: NodeClaims past their pool's expireAfter.
#pragma once

#include <vector>

#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// Every live node older than its pool's expireAfter is deleted at once: no budgets, no
// validation, as the v1 expiration controller does.
void expire_nodes(const Cluster& cluster, const std::vector<NodePool>& pools,
                  NodeTermination& termination, SimTime now);

}  // namespace fleetsim
