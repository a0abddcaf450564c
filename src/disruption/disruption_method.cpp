#include "fleetsim/disruption/disruption_method.hpp"

#include <algorithm>

#include "fleetsim/disruption/disruption_budget.hpp"

namespace fleetsim {

SimDuration drain_time(const Node& n, const Cluster& cluster, const NodePool& pool) {
  SimDuration drain{0};
  for (PodId p : n.pods) drain = std::max(drain, cluster.pod(p).spec->termination_grace);
  if (pool.termination_grace_period) drain = std::min(drain, *pool.termination_grace_period);
  return drain;
}

std::int64_t& BudgetTracker::allowance(std::uint32_t pool) {
  auto it = allowed_.find(pool);
  if (it == allowed_.end())
    it = allowed_
             .emplace(pool, allowed_disruptions(pools_[pool], pool, cluster_, reason_, now_,
                                                start_unix_s_))
             .first;
  return it->second;
}

bool BudgetTracker::has_room(std::uint32_t pool) { return allowance(pool) > 0; }

bool BudgetTracker::take(std::uint32_t pool) {
  std::int64_t& left = allowance(pool);
  if (left <= 0) return false;
  --left;
  return true;
}

}  // namespace fleetsim
