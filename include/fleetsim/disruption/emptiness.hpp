// Karpenter's emptiness method: empty nodes past consolidateAfter.
#pragma once

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/disruption/candidate.hpp"
#include "fleetsim/disruption/disruption_method.hpp"

namespace fleetsim {

// Every candidate without a pod that costs anything to move whose consolidateAfter has passed
// since its last pod event, highest savings ratio first (its price, for an empty node), up to each
// pool's budget, in one command; after validation the nodes still empty are deleted (from v1.5;
// before, the command is dropped unless all still are) (core:pkg/controllers/disruption/
// emptiness.go). Applies under every consolidation policy.
class Emptiness final : public DisruptionMethod {
 public:
  Emptiness(const Cluster& cluster, const NodeClaims& claims, const std::vector<NodePool>& pools,
            const CloudProvider& cloud, const PodDisruptionBudgets& pdbs, KarpenterVersion version)
      : cluster_(cluster),
        claims_(claims),
        pools_(pools),
        cloud_(cloud),
        pdbs_(pdbs),
        version_(version) {}

  std::string_view name() const override { return "emptiness"; }
  DisruptionReason budget_reason() const override { return DisruptionReason::Empty; }
  NodeDeletionReason termination_reason() const override { return NodeDeletionReason::Empty; }
  DisruptionCommand compute(SimTime now, BudgetTracker& budgets) override;
  DisruptionCommand validate(DisruptionCommand command, SimTime now,
                             BudgetTracker& budgets) override;

 private:
  std::vector<Candidate> candidates(SimTime now) const;

  const Cluster& cluster_;
  const NodeClaims& claims_;
  const std::vector<NodePool>& pools_;
  const CloudProvider& cloud_;
  const PodDisruptionBudgets& pdbs_;
  KarpenterVersion version_;
};

}  // namespace fleetsim
