// One way Karpenter disrupts nodes (emptiness, drift, multi- and single-node consolidation), as
// an entry of the disruption controller's ordered list: candidates in, a command out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

// What a method decided: nodes to delete and the NodeClaims to launch first (one for a
// consolidation replace, any number for drift; their pods lists are empty: nothing is nominated).
struct DisruptionCommand {
  std::vector<NodeId> nodes;
  std::vector<NewNodeClaim> replacements;
  double savings_per_hour = 0.0;  // the candidates' prices − the replacements' cheapest offerings
  std::size_t pods = 0;           // reschedulable pods that move
  // Existing nodes the computing simulation placed pods on: nominated when the command starts.
  std::vector<NodeId> destinations;
};

// Per pass, how many more nodes each pool may lose for one reason; each pool's allowance is
// computed once, on first use (core:pkg/controllers/disruption BuildDisruptionBudgetMapping).
class BudgetTracker {
 public:
  BudgetTracker(const std::vector<NodePool>& pools, const Cluster& cluster, DisruptionReason reason,
                SimTime now, std::int64_t start_unix_s)
      : pools_(pools), cluster_(cluster), reason_(reason), now_(now), start_unix_s_(start_unix_s) {}

  // Takes one disruption from the pool's allowance; false when none is left.
  bool take(std::uint32_t pool);
  // Whether the pool has any allowance left (takes nothing).
  bool has_room(std::uint32_t pool);

 private:
  std::int64_t& allowance(std::uint32_t pool);

  const std::vector<NodePool>& pools_;
  const Cluster& cluster_;
  DisruptionReason reason_;
  SimTime now_;
  std::int64_t start_unix_s_;
  std::map<std::uint32_t, std::int64_t> allowed_;
};

class DisruptionMethod {
 public:
  virtual ~DisruptionMethod() = default;
  // As the disruption_decision event names it ("emptiness", "single_node_consolidation", …).
  virtual std::string_view name() const = 0;
  // The budget reason, and why its nodes are deleted.
  virtual DisruptionReason budget_reason() const = 0;
  virtual NodeDeletionReason termination_reason() const = 0;
  // The command for this pass, taking from the budgets; no nodes when there is nothing to do.
  virtual DisruptionCommand compute(SimTime now, BudgetTracker& budgets) = 0;
  // Whether a command waits the validation delay and is validated (drift's is not).
  virtual bool validated() const { return true; }
  // After the validation delay, what still holds of the command (no nodes: drop it).
  virtual DisruptionCommand validate(DisruptionCommand command, SimTime now,
                                     BudgetTracker& budgets) = 0;
};

}  // namespace fleetsim
