#include "fleetsim/disruption/drift.hpp"

#include <algorithm>

namespace fleetsim {

bool Drift::drifted(const Node& node, const NodeClaimState& claim, const NodePool& pool,
                    std::uint64_t node_class_hash) {
  return claim.template_hash != template_hash(pool) || claim.node_class_hash != node_class_hash ||
         node.labels.incompatibility(pool.requirements).has_value();
}

// Karpenter's NodeClaim disruption controller sets Drifted as it notices; fleetsim notices at
// each poll.
void Drift::note_drift(SimTime now) {
  const std::vector<NodePool>& pools = provisioner_.nodepools();
  const NodeClaimLauncher& launcher = provisioner_.launcher();
  if (verdicts_generation_ != provisioner_.generation()) {
    verdicts_.clear();
    verdicts_generation_ = provisioner_.generation();
  }
  verdicts_.resize(cluster_.nodes().size(), -1);
  auto is_drifted = [&](const Node& n) {
    std::int8_t& verdict = verdicts_[n.id];
    if (verdict < 0) {
      const NodePoolOwner* owner = n.nodepool();
      verdict = owner != nullptr && drifted(n, launcher.claims().at(n.id), pools[owner->pool],
                                            launcher.pool_info(owner->pool).node_class_hash);
    }
    return verdict == 1;
  };
  std::erase_if(drifted_since_, [&](const auto& entry) {
    const Node& n = cluster_.node(entry.first);
    return !n.is_live() || !is_drifted(n);
  });
  for (NodeId id : cluster_.active_nodes()) {
    const Node& n = cluster_.node(id);
    if (n.is_live() && n.initialized && is_drifted(n)) drifted_since_.emplace(id, now);
  }
}

DisruptionCommand Drift::compute(SimTime now, BudgetTracker& budgets) {
  note_drift(now);
  if (drifted_since_.empty()) return {};
  std::vector<Candidate> candidates =
      disruption_candidates(cluster_, provisioner_.launcher().claims(), cloud_, pdbs_,
                            provisioner_.nodepools(), DisruptionClass::Eventual, now, version_);
  std::erase_if(candidates, [&](const Candidate& c) { return !drifted_since_.contains(c.node); });
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.pods.empty() != b.pods.empty()) return a.pods.empty();
    const SimTime ta = drifted_since_.at(a.node), tb = drifted_since_.at(b.node);
    if (ta != tb) return ta < tb;
    return cluster_.node(a.node).name < cluster_.node(b.node).name;
  });
  if (!version_.emptiness_first()) {
    // Before v1.5 every empty drifted node within budget goes in one command, without simulation.
    DisruptionCommand empties;
    for (const Candidate& c : candidates) {
      if (!c.pods.empty() || !budgets.take(c.pool)) continue;
      empties.nodes.push_back(c.node);
      empties.savings_per_hour += c.price;
    }
    if (!empties.nodes.empty()) return empties;
  }
  for (const Candidate& c : candidates) {
    if (!budgets.has_room(c.pool)) continue;
    const std::optional<std::vector<NewNodeClaim>>& claims =
        simulation_.run(std::span(&c, 1), /*consolidation=*/false, now);
    if (!claims) continue;
    budgets.take(c.pool);
    DisruptionCommand command{.nodes = {c.node},
                              .savings_per_hour = c.price,
                              .pods = c.pods.size(),
                              .destinations = simulation_.destinations()};
    for (NewNodeClaim claim : *claims) {
      claim.pods.clear();
      command.savings_per_hour -= cheapest_offering_price(simulation_.context(), cloud_, claim.pool,
                                                          claim.types.front(), claim.requirements);
      command.replacements.push_back(std::move(claim));
    }
    return command;
  }
  return {};
}

}  // namespace fleetsim
