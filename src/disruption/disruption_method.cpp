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

bool BudgetTracker::take(std::uint32_t pool) {
  auto it = allowed_.find(pool);
  if (it == allowed_.end())
    it = allowed_
             .emplace(pool, allowed_disruptions(pools_[pool], pool, cluster_, reason_, now_,
                                                start_unix_s_))
             .first;
  if (it->second <= 0) return false;
  --it->second;
  return true;
}

}  // namespace fleetsim
