// Karpenter v1's expiration controller (core:pkg/controllers/nodeclaim/expiration): a NodeClaim
// is deleted exactly when its expireAfter has passed since its creation.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// The claim keeps the expireAfter and terminationGracePeriod its pool had at its creation (they
// are copied into the NodeClaim's spec). Deletion is forceful: no budgets, no validation, no
// do-not-disrupt check; the drain still waits for PDBs and do-not-disrupt pods until the
// terminationGracePeriod.
class Expiration final : private EventHandler {
 public:
  Expiration(Simulation& sim, const Cluster& cluster, const std::vector<NodePool>& pools,
             NodeTermination& termination)
      : sim_(sim), cluster_(cluster), pools_(pools), termination_(termination) {}

  // A NodeClaim was created for the node: its expiry is timed now.
  void claim_created(NodeId node);

 private:
  void on_event(SimTime now, std::uint64_t tag) override;  // tag: the node

  Simulation& sim_;
  const Cluster& cluster_;
  const std::vector<NodePool>& pools_;
  NodeTermination& termination_;
  std::map<NodeId, std::optional<SimDuration>> grace_;  // claims waiting to expire
};

}  // namespace fleetsim
