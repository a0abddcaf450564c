// Karpenter's drift method: nodes whose NodePool changed under them are replaced
// (core:pkg/controllers/disruption/drift.go, nodeclaim/disruption/drift.go).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "fleetsim/disruption/disruption_method.hpp"
#include "fleetsim/disruption/scheduling_simulation.hpp"

namespace fleetsim {

// A node is Drifted when its pool's template hash or its EC2NodeClass's spec changed since its
// launch, or its labels no longer satisfy the pool's requirements; changing requirements in a way
// the node still satisfies is not drift. Candidates go oldest-drifted first, empty ones before the
// others, one per command within the Drifted budget (before v1.5 every empty drifted node within
// budget in one command); the command launches whatever NodeClaims the simulation needs (any
// number) and is not validated.
class Drift final : public DisruptionMethod {
 public:
  Drift(const Cluster& cluster, const KarpenterProvisioner& provisioner, CloudProvider& cloud,
        const PodDisruptionBudgets& pdbs, KarpenterVersion version)
      : cluster_(cluster),
        provisioner_(provisioner),
        cloud_(cloud),
        pdbs_(pdbs),
        version_(version),
        simulation_(cluster, provisioner, cloud) {}

  std::string_view name() const override { return "drift"; }
  DisruptionReason budget_reason() const override { return DisruptionReason::Drifted; }
  NodeDeletionReason termination_reason() const override { return NodeDeletionReason::Drifted; }
  bool validated() const override { return false; }
  DisruptionCommand compute(SimTime now, BudgetTracker& budgets) override;
  DisruptionCommand validate(DisruptionCommand command, SimTime, BudgetTracker&) override {
    return command;
  }

  // Whether the node's NodePool or EC2NodeClass (its spec_hash now) drifted from it.
  static bool drifted(const Node& node, const NodeClaimState& claim, const NodePool& pool,
                      std::uint64_t node_class_hash);

 private:
  void note_drift(SimTime now);

  const Cluster& cluster_;
  const KarpenterProvisioner& provisioner_;
  CloudProvider& cloud_;
  const PodDisruptionBudgets& pdbs_;
  KarpenterVersion version_;
  SchedulingSimulation simulation_;
  std::map<NodeId, SimTime> drifted_since_;  // the Drifted condition's transition time
  // Per initialized node: whether it drifted (-1: not judged yet). Its labels and launch hashes
  // do not change, so a verdict holds until NodePools or EC2NodeClasses are applied again.
  std::vector<std::int8_t> verdicts_;
  std::uint64_t verdicts_generation_ = 0;
};

}  // namespace fleetsim
