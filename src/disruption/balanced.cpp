#include "fleetsim/disruption/balanced.hpp"

#include <algorithm>
#include <limits>

namespace fleetsim {

std::vector<PoolTotals> pool_totals(const Cluster& cluster, const CloudProvider& cloud,
                                    std::size_t pool_count) {
  std::vector<PoolTotals> out(pool_count);
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    const NodePoolOwner* owner = n.nodepool();
    if (owner == nullptr || owner->pool >= pool_count || !n.is_live() ||
        n.phase == NodePhase::Launching)
      continue;
    PoolTotals& t = out[owner->pool];
    t.cost += cloud.node_pricing().instance_per_hour(n);
    if (!n.initialized) continue;
    t.disruption += kPerNodeDisruptionCost;
    for (PodId p : n.pods) {
      const Pod& pod = cluster.pod(p);
      if (!pod.terminating) t.disruption += std::max(0.0, eviction_cost(pod));
    }
  }
  return out;
}

bool balanced_approves(double savings, double disruption, const PoolTotals& totals) {
  if (totals.cost <= 0 || totals.disruption <= 0) return false;
  const double savings_fraction = savings / totals.cost;
  const double disruption_fraction = disruption / totals.disruption;
  if (savings_fraction <= 0) return false;
  const double score = disruption_fraction == 0 ? std::numeric_limits<double>::infinity()
                                                : savings_fraction / disruption_fraction;
  return score >= 1.0 / kBalancedK;
}

bool balanced_approves_command(std::span<const Candidate> candidates, double savings,
                               const std::vector<NodePool>& pools,
                               const std::vector<PoolTotals>& totals) {
  double source_cost = 0;
  std::vector<std::uint32_t> seen;
  for (const Candidate& c : candidates) {
    source_cost += c.price;
    if (std::find(seen.begin(), seen.end(), c.pool) == seen.end()) seen.push_back(c.pool);
  }
  for (std::uint32_t pool : seen) {
    if (pools[pool].disruption.policy != ConsolidationPolicy::Balanced) continue;
    double pool_cost = 0, disruption = 0;
    for (const Candidate& c : candidates) {
      if (c.pool != pool) continue;
      pool_cost += c.price;
      disruption += c.reschedule_cost;
    }
    double pool_savings = savings;
    if (source_cost > 0 && seen.size() > 1) pool_savings = savings * (pool_cost / source_cost);
    if (!balanced_approves(pool_savings, disruption, totals[pool])) return false;
  }
  return true;
}

}  // namespace fleetsim
