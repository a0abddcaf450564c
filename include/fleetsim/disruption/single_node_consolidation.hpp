// Karpenter's single-node consolidation: the first candidate that can be deleted or replaced by a
// cheaper node (core:pkg/controllers/disruption/singlenodeconsolidation.go).
#pragma once

#include "fleetsim/disruption/consolidation.hpp"

namespace fleetsim {

// Candidates by savings ratio, interleaved round-robin across NodePools (pools in index order),
// skipping pools without budget and, under Balanced, candidates that could not pass even if
// deleted outright; the first valid command wins. Karpenter's three-minute timeout is not
// modelled: every candidate is tried.
class SingleNodeConsolidation final : public Consolidation {
 public:
  using Consolidation::Consolidation;
  std::string_view name() const override { return "single_node_consolidation"; }
  DisruptionCommand compute(SimTime now, BudgetTracker& budgets) override;
};

}  // namespace fleetsim
