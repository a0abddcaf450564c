// Karpenter's emptiness method: empty nodes past consolidateAfter.
#pragma once

#include "fleetsim/disruption/disruption_method.hpp"

namespace fleetsim {

// Every initialized, non-nominated empty node whose consolidateAfter has passed since its last
// pod event, most expensive first (v1.14's savings ratio for an empty node is its price; ties by
// name), up to each pool's budget.
class Emptiness final : public DisruptionMethod {
 public:
  Emptiness(const Cluster& cluster, const std::vector<NodePool>& pools)
      : cluster_(cluster), pools_(pools) {}

  std::string_view budget_reason() const override { return "Empty"; }
  std::string_view termination_reason() const override { return "empty"; }
  bool is_candidate(const Node& node, SimTime now) const override;
  DisruptionCommand compute(SimTime now, BudgetTracker& budgets) override;

 private:
  const Cluster& cluster_;
  const std::vector<NodePool>& pools_;
};

}  // namespace fleetsim
