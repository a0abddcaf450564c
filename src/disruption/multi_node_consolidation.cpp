#include "fleetsim/disruption/multi_node_consolidation.hpp"

namespace fleetsim {

std::optional<DisruptionCommand> MultiNodeConsolidation::try_prefix(
    std::span<const Candidate> prefix, SimTime now) {
  std::optional<DisruptionCommand> command = compute_consolidation(prefix, now);
  if (!command) return std::nullopt;
  if (!command->replacements.empty()) {
    // filterOutSameInstanceType: two cheap nodes become one of them, not a third type.
    double max_price = std::numeric_limits<double>::infinity();
    NewNodeClaim& claim = command->replacements.front();
    for (const Candidate& c : prefix) {
      const std::uint32_t type = cluster_.node(c.node).type;
      if (std::find(claim.types.begin(), claim.types.end(), type) != claim.types.end())
        max_price = std::min(max_price, c.price);
    }
    if (!keep_cheaper(claim, max_price)) return std::nullopt;
  }
  if (!approves(prefix, *command)) return std::nullopt;
  return command;
}

DisruptionCommand MultiNodeConsolidation::compute(SimTime now, BudgetTracker& budgets) {
  // Upstream computes only with candidates, and a method consolidated since the cluster's
  // last change (or 5 minutes) finds nothing: then the candidates need not be built.
  if (known_consolidated(now)) return {};
  const std::vector<Candidate>& all = candidates(now);
  if (all.empty() || is_consolidated(now)) return {};
  std::vector<Candidate> within_budget;
  bool constrained = false;
  for (const Candidate& c : all) {
    if (!budgets.has_room(c.pool)) {
      constrained = true;
      continue;
    }
    if (passes_over(c)) continue;
    budgets.take(c.pool);
    within_budget.push_back(c);
  }
  if (within_budget.size() > kMaxMultiNodeCandidates) within_budget.resize(kMaxMultiNodeCandidates);

  // firstNConsolidationOption: prefixes of length mid + 1 for mid in [1, max].
  std::optional<DisruptionCommand> best;
  if (within_budget.size() >= 2) {
    std::size_t lo = 1, hi = within_budget.size() - 1;
    while (lo <= hi) {
      const std::size_t mid = (lo + hi) / 2;
      std::optional<DisruptionCommand> command =
          try_prefix(std::span(within_budget).first(mid + 1), now);
      if (command) {
        best = std::move(command);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
  }
  if (best) return std::move(*best);
  if (!constrained) mark_consolidated(now);
  return {};
}

}  // namespace fleetsim
