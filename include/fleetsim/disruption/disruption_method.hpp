// One way Karpenter disrupts nodes (emptiness today; drift and consolidation follow), as an
// entry of the disruption controller's ordered list: candidates in, a command out.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// How long a deleted node waits for its pods: the longest grace period, capped by the pool's
// terminationGracePeriod.
SimDuration drain_time(const Node& node, const Cluster& cluster, const NodePool& pool);

// What a method decided: nodes to delete (replacements come with consolidation).
struct DisruptionCommand {
  std::vector<NodeId> nodes;
};

// Per pass, how many more nodes each pool may lose for one reason; each pool's allowance is
// computed once, on first use (core:pkg/controllers/disruption BuildDisruptionBudgetMapping).
class BudgetTracker {
 public:
  BudgetTracker(const std::vector<NodePool>& pools, const Cluster& cluster, std::string_view reason,
                SimTime now, std::int64_t start_unix_s)
      : pools_(pools), cluster_(cluster), reason_(reason), now_(now), start_unix_s_(start_unix_s) {}

  // Takes one disruption from the pool's allowance; false when none is left.
  bool take(std::uint32_t pool);

 private:
  const std::vector<NodePool>& pools_;
  const Cluster& cluster_;
  std::string_view reason_;
  SimTime now_;
  std::int64_t start_unix_s_;
  std::map<std::uint32_t, std::int64_t> allowed_;
};

class DisruptionMethod {
 public:
  virtual ~DisruptionMethod() = default;
  // The budget reason ("Empty", "Drifted", "Underutilized") and the nodes' termination reason.
  virtual std::string_view budget_reason() const = 0;
  virtual std::string_view termination_reason() const = 0;
  // Whether the node is a candidate for this method now (checked again after validation).
  virtual bool is_candidate(const Node& node, SimTime now) const = 0;
  // The command for this pass, taking from the budgets; empty when the method has nothing to do.
  virtual DisruptionCommand compute(SimTime now, BudgetTracker& budgets) = 0;
};

}  // namespace fleetsim
