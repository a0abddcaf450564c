#include "fleetsim/disruption/emptiness.hpp"

#include <algorithm>

namespace fleetsim {

std::vector<Candidate> Emptiness::candidates(SimTime now) const {
  std::vector<Candidate> out =
      disruption_candidates(cluster_, claims_, cloud_, pdbs_, pools_, DisruptionClass::Graceful,
                            now, version_, CandidateScope::Empty);
  // A node the last provisioning solve placed CapacityBuffer virtual pods on is not empty
  // (emptiness.go ShouldDisrupt: HasBufferPods).
  std::erase_if(out, [&](const Candidate& c) {
    return !c.empty || claims_.buffer_pods(c.node) > 0 ||
           !consolidatable(cluster_.node(c.node), pools_[c.pool], now);
  });
  return out;
}

DisruptionCommand Emptiness::compute(SimTime now, BudgetTracker& budgets) {
  DisruptionCommand command;
  for (const Candidate& c : candidates(now)) {
    if (!budgets.take(c.pool)) continue;
    command.nodes.push_back(c.node);
    command.savings_per_hour += c.price;
  }
  return command;
}

// EmptinessValidator: the nodes still empty candidates within budget go; the others stay. Before
// v1.5 (#2206) a single change drops the whole command.
DisruptionCommand Emptiness::validate(DisruptionCommand command, SimTime now,
                                      BudgetTracker& budgets) {
  const std::vector<Candidate> now_empty = candidates(now);
  DisruptionCommand valid;
  for (NodeId id : command.nodes) {
    auto it = std::find_if(now_empty.begin(), now_empty.end(),
                           [&](const Candidate& c) { return c.node == id; });
    if (it == now_empty.end() || !budgets.take(it->pool)) {
      if (!version_.emptiness_first()) return {};
      continue;
    }
    valid.nodes.push_back(id);
    valid.savings_per_hour += it->price;
  }
  return valid;
}

}  // namespace fleetsim
