#include "fleetsim/disruption/disruption_budget.hpp"

#include <algorithm>
#include <limits>

#include "fleetsim/disruption/cron_schedule.hpp"

namespace fleetsim {

namespace {

bool schedule_active(const DisruptionBudget& b, SimTime now, std::int64_t start_unix_s) {
  if (b.schedule.empty()) return true;
  std::optional<CronSchedule> cron = CronSchedule::parse(b.schedule);
  if (!cron || !b.duration) return false;  // the scenario loader rejects these
  std::int64_t now_min = (start_unix_s + now.time_since_epoch().count() / 1'000'000) / 60;
  return cron->fired_within(now_min, b.duration->count() / 60'000'000);
}

}  // namespace

std::int64_t allowed_disruptions(const NodePool& pool, std::uint32_t pool_index,
                                 const Cluster& cluster, DisruptionReason reason, SimTime now,
                                 std::int64_t start_unix_s) {
  std::int64_t total = 0, disrupting = 0;
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    const NodePoolOwner* owner = n.nodepool();
    // helpers.go BuildDisruptionBudgetMapping: initialized nodes whose instance is not yet
    // terminating; disrupting are those being deleted (or NotReady, which fleetsim's Ready
    // nodes never turn) or held by a command.
    if (owner == nullptr || owner->pool != pool_index || !n.initialized || n.instance_terminating)
      continue;
    ++total;
    if (n.phase != NodePhase::Initialized || n.marked_for_disruption()) ++disrupting;
  }
  std::int64_t allowed = std::numeric_limits<std::int64_t>::max();
  for (const DisruptionBudget& b : pool.disruption.budgets) {
    if (!b.reasons.empty() &&
        std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end())
      continue;
    if (!schedule_active(b, now, start_unix_s)) continue;
    std::int64_t limit = b.percent ? (total * b.nodes + 99) / 100 : b.nodes;
    allowed = std::min(allowed, limit);
  }
  if (allowed == std::numeric_limits<std::int64_t>::max()) return allowed;
  return std::max<std::int64_t>(0, allowed - disrupting);
}

}  // namespace fleetsim
