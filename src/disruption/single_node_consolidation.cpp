#include "fleetsim/disruption/single_node_consolidation.hpp"

#include <map>

namespace fleetsim {

DisruptionCommand SingleNodeConsolidation::compute(SimTime now, BudgetTracker& budgets) {
  // Upstream computes only with candidates, and a method consolidated since the cluster's
  // last change (or 5 minutes) finds nothing: then the candidates need not be built.
  if (known_consolidated(now)) return {};
  const std::vector<Candidate>& all = candidates(now);
  if (all.empty() || is_consolidated(now)) return {};
  // Round-robin across pools (v1.4+), each pool's candidates in order; before v1.4 one list.
  const bool interleave = settings_.version.interleaves_pools();
  std::map<std::uint32_t, std::vector<const Candidate*>> by_pool;
  std::size_t longest = 0;
  for (const Candidate& c : all) {
    auto& list = by_pool[interleave ? c.pool : 0];
    list.push_back(&c);
    longest = std::max(longest, list.size());
  }
  bool constrained = false;
  for (std::size_t i = 0; i < longest; ++i) {
    for (const auto& [pool, list] : by_pool) {
      if (i >= list.size()) continue;
      const Candidate& c = *list[i];
      if (!budgets.has_room(c.pool)) {
        constrained = true;
        continue;
      }
      if (passes_over(c) || !can_pass_threshold(c)) continue;
      std::optional<DisruptionCommand> command = compute_consolidation(std::span(&c, 1), now);
      if (!command || !approves(std::span(&c, 1), *command)) continue;
      budgets.take(c.pool);
      return std::move(*command);
    }
  }
  if (!constrained) mark_consolidated(now);
  return {};
}

}  // namespace fleetsim
