#include "fleetsim/disruption/disruption_method.hpp"

#include <algorithm>

#include "fleetsim/disruption/disruption_budget.hpp"

namespace fleetsim {

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
