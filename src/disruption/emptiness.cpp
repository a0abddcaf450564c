#include "fleetsim/disruption/emptiness.hpp"

#include <algorithm>

namespace fleetsim {

bool Emptiness::is_candidate(const Node& n, SimTime now) const {
  const NodePool& pool = pools_[n.pool];
  return n.phase == NodePhase::Initialized && n.pods.empty() && n.nominated_until <= now &&
         pool.disruption.consolidate_after &&
         now - n.last_pod_event >= *pool.disruption.consolidate_after;
}

DisruptionCommand Emptiness::compute(SimTime now, BudgetTracker& budgets) {
  std::vector<NodeId> candidates;
  for (NodeId id : cluster_.active_nodes())
    if (is_candidate(cluster_.node(id), now)) candidates.push_back(id);
  std::sort(candidates.begin(), candidates.end(), [&](NodeId a, NodeId b) {
    const Node& na = cluster_.node(a);
    const Node& nb = cluster_.node(b);
    if (na.price_per_hour != nb.price_per_hour) return na.price_per_hour > nb.price_per_hour;
    return na.name < nb.name;
  });
  DisruptionCommand command;
  for (NodeId id : candidates)
    if (budgets.take(cluster_.node(id).pool)) command.nodes.push_back(id);
  return command;
}

}  // namespace fleetsim
