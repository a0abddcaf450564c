// The cluster as the solver sees it, for every controller that simulates scheduling (Karpenter's
// provisioner and disruption, the Cluster Autoscaler): its pods, nodes and bound pods.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

// A pod to place. `from_candidate`: a pod of a consolidation candidate.
PendingPod pending_pod(const Pod& pod, bool from_candidate = false);

// A live node, with its NodePool's index (kNoPool for a node group's node) and the room the
// caller counts as free.
ExistingNode existing_node(const Node& node, const Resources& available);

// Appends the pods bound to `nodes` (`nodes[i]` is the solver's node i).
void add_bound_pods(const Cluster& cluster, std::span<const NodeId> nodes,
                    std::vector<BoundPod>& out);

}  // namespace fleetsim
