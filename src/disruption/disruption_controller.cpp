#include "fleetsim/disruption/disruption_controller.hpp"

#include <algorithm>
#include <map>

#include "fleetsim/disruption/disruption_budget.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kReasonEmpty = "Empty";

// How long a drained node waits for its pods: the longest grace period, capped by the pool's
// terminationGracePeriod.
SimDuration drain_time(const Node& n, const Cluster& cluster, const NodePool& pool) {
  SimDuration drain{0};
  for (PodId p : n.pods) drain = std::max(drain, cluster.pod(p).spec->termination_grace);
  if (pool.termination_grace_period) drain = std::min(drain, *pool.termination_grace_period);
  return drain;
}

}  // namespace

DisruptionController::DisruptionController(Simulation& sim, const Cluster& cluster, NodeTermination& termination,
                                           const std::vector<NodePool>& pools, std::int64_t start_unix_s)
    : sim_(sim), cluster_(cluster), termination_(termination), pools_(pools), start_unix_s_(start_unix_s) {}

void DisruptionController::start() {
  sim_.every(kDisruptionPollPeriod, sim_.now() + kDisruptionPollPeriod, Phase::Disruption, *this,
             static_cast<std::uint64_t>(Step::Poll));
}

void DisruptionController::on_event(SimTime now, std::uint64_t tag) {
  if (tag == static_cast<std::uint64_t>(Step::Validate)) {
    execute(now);
    return;
  }
  expire(now);
  if (!command_.empty()) return;  // a command is being validated
  command_ = empty_candidates(now);
  if (!command_.empty())
    sim_.schedule_after(kCommandValidationDelay, Phase::Disruption, *this, static_cast<std::uint64_t>(Step::Validate));
}

void DisruptionController::expire(SimTime now) {
  for (NodeId id : std::vector<NodeId>(cluster_.active_nodes())) {
    const Node& n = cluster_.node(id);
    const NodePool& pool = pools_[n.pool];
    if (!n.is_live() || !pool.expire_after || now - n.created < *pool.expire_after) continue;
    termination_.delete_node(n.id, "expired", drain_time(n, cluster_, pool));
  }
}

bool DisruptionController::is_empty_candidate(const Node& n, SimTime now) const {
  const NodePool& pool = pools_[n.pool];
  return n.phase == NodePhase::Initialized && n.pods.empty() && n.nominated_until <= now &&
         pool.disruption.consolidate_after && now - n.last_pod_event >= *pool.disruption.consolidate_after;
}

std::vector<NodeId> DisruptionController::empty_candidates(SimTime now) const {
  std::vector<NodeId> candidates;
  for (NodeId id : cluster_.active_nodes())
    if (is_empty_candidate(cluster_.node(id), now)) candidates.push_back(id);
  std::sort(candidates.begin(), candidates.end(), [&](NodeId a, NodeId b) {
    const Node& na = cluster_.node(a);
    const Node& nb = cluster_.node(b);
    if (na.price_per_hour != nb.price_per_hour) return na.price_per_hour > nb.price_per_hour;
    return na.name < nb.name;
  });
  std::map<std::uint32_t, std::int64_t> allowed;  // per pool, computed once per pass
  std::vector<NodeId> command;
  for (NodeId id : candidates) {
    std::uint32_t pool = cluster_.node(id).pool;
    auto it = allowed.find(pool);
    if (it == allowed.end())
      it = allowed.emplace(pool, allowed_disruptions(pools_[pool], pool, cluster_, kReasonEmpty, now, start_unix_s_)).first;
    if (it->second <= 0) continue;
    --it->second;
    command.push_back(id);
  }
  return command;
}

void DisruptionController::execute(SimTime now) {
  std::vector<NodeId> command;
  command.swap(command_);
  std::map<std::uint32_t, std::int64_t> allowed;
  for (NodeId id : command) {
    const Node& n = cluster_.node(id);
    if (!is_empty_candidate(n, now)) continue;  // a pod arrived or it was nominated meanwhile
    auto it = allowed.find(n.pool);
    if (it == allowed.end())
      it = allowed.emplace(n.pool, allowed_disruptions(pools_[n.pool], n.pool, cluster_, kReasonEmpty, now, start_unix_s_)).first;
    if (it->second <= 0) continue;
    --it->second;
    termination_.delete_node(id, "empty", SimDuration{0});
  }
}

}  // namespace fleetsim
