// Karpenter's multi-node consolidation: the longest prefix of candidates that one node at most
// can replace (core:pkg/controllers/disruption/multinodeconsolidation.go).
#pragma once

#include "fleetsim/disruption/consolidation.hpp"

namespace fleetsim {

// At most this many candidates are tried together.
inline constexpr std::size_t kMaxMultiNodeCandidates = 100;

// Candidates by savings ratio, each within its pool's budget, capped at 100; a binary search over
// the prefix length (at least 2) keeps the longest prefix that deletes, or replaces with one
// cheaper node whose types exclude those priced at or above a candidate's own type
// (filterOutSameInstanceType). Karpenter's one-minute timeout is not modelled: the search always
// completes.
class MultiNodeConsolidation final : public Consolidation {
 public:
  using Consolidation::Consolidation;
  std::string_view name() const override { return "multi_node_consolidation"; }
  DisruptionCommand compute(SimTime now, BudgetTracker& budgets) override;

 private:
  std::optional<DisruptionCommand> try_prefix(std::span<const Candidate> prefix, SimTime now);
};

}  // namespace fleetsim
