// Turns the solver's NodeClaims into instances: naming, launch choice, nomination.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/core/name_generator.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/provisioning/karpenter/nodeclaims.hpp"
#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

// A node that got pods in a simulation is nominated for max(2 × batch max, 10 s), 20 s by default
// (core:pkg/controllers/state/statenode.go nominationWindow), and is no disruption candidate.
inline constexpr SimDuration nomination_window(SimDuration batch_max) {
  return std::max(2 * batch_max, seconds(10));
}

class NodeClaimLauncher {
 public:
  NodeClaimLauncher(Simulation& sim, Cluster& cluster, ClusterBus& bus, CloudProvider& cloud,
                    SimDuration nomination_window);

  const Catalog& catalog() const { return cloud_.catalog(); }
  const PoolLaunchInfo& pool_info(std::uint32_t pool) const { return pools_[pool]; }
  // The NodePools later claims come from (they change on a scripted apply).
  void set_pools(const SchedulingContext& context, std::vector<PoolLaunchInfo> pools);

  // Creates the claim's node and launches it through the cloud provider, then nominates the
  // claim's pods to it (`pending` maps the claim's pod indices to pods). When no offering has
  // capacity, the pods keep the reason and lose any older nomination; nullopt.
  std::optional<NodeId> launch(const NewNodeClaim& claim, const std::vector<PodId>& pending);

  // Karpenter planned the pod onto the node: the node is no disruption candidate for the
  // nomination window, which each pass that plans a pod onto it extends (NominateNodeForPod).
  void nominate(PodId pod, NodeId node);
  // Holds the node out of disruption for the nomination window from now.
  void nominate_node(NodeId node);

  // What Karpenter keeps about the claims it launched (drift's hashes, nominations).
  const NodeClaims& claims() const { return claims_; }
  NodeClaims& claims() { return claims_; }

 private:
  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  CloudProvider& cloud_;
  const SchedulingContext* context_ = nullptr;
  std::vector<PoolLaunchInfo> pools_;
  NodeClaims claims_;
  NameGenerator names_;  // "<nodepool>-x7k2p"
  SimDuration nomination_window_;
};

}  // namespace fleetsim
