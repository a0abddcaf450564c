#include "fleetsim/kube/node_termination.hpp"

#include <algorithm>

#include "fleetsim/k8s/pod_disruption.hpp"

namespace fleetsim {

namespace {

// Karpenter drains non-critical pods before system-critical ones (terminator.go).
bool critical(const Pod& pod) {
  const std::string& pc = pod.spec->priority_class_name;
  return pc == "system-cluster-critical" || pc == "system-node-critical";
}

SimTime minus(SimTime t, SimDuration d) { return t == kNever ? kNever : t - d; }

}  // namespace

void NodeTermination::delete_node(NodeId id, NodeDeletionReason reason, DrainLimits limits) {
  if (!cluster_.node(id).is_live()) return;
  const SimTime now = sim_.now();
  Drain d{.reason = reason, .last_exit = now};
  if (limits.termination_grace_period)
    d.tgp_deadline = saturating_add(now, *limits.termination_grace_period);
  d.deadline = std::min(d.tgp_deadline, limits.instance_stops);
  cluster_.begin_node_deletion(id, now, d.deadline, reason);
  bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeDeleting, .node = id, .reason = reason});
  cluster_.clear_nominations_to(id);
  drains_.insert_or_assign(id, std::move(d));
  step(id, now);
  bus_.capacity_changed();
}

void NodeTermination::evict(PodId p, NodeId node, Drain& d, SimTime now) {
  const Pod& pod = cluster_.pod(p);
  d.last_exit =
      std::max(d.last_exit, std::min(saturating_add(now, pod.spec->termination_grace), d.deadline));
  cluster_.finish(p, PodPhase::Deleted, now);
  bus_.emit(SimEvent{.time = now,
                     .kind = EventKind::PodEvicted,
                     .node = node,
                     .pod = p,
                     .workload = pod.workload,
                     .reason = d.reason});
  bus_.pod_evicted(p, node);
}

void NodeTermination::step(NodeId id, SimTime now) {
  Drain& d = drains_.at(id);
  const bool at_deadline = now >= d.deadline;
  const std::vector<PodId> bound = cluster_.node(id).pods;
  const bool non_critical_left =
      std::any_of(bound.begin(), bound.end(), [&](PodId p) { return !critical(cluster_.pod(p)); });
  SimTime next_forced = kNever;
  for (PodId p : bound) {
    const Pod& pod = cluster_.pod(p);
    const SimTime forced_at = minus(d.tgp_deadline, pod.spec->termination_grace);
    const bool forced = at_deadline || now >= forced_at;
    if (!forced) {
      next_forced = std::min(next_forced, forced_at);
      if (critical(pod) && non_critical_left) continue;
      if (do_not_disrupt_active(pod, now) || !pdbs_.eviction_allowed(pod)) continue;
    }
    evict(p, id, d, now);
  }
  if (cluster_.node(id).pods.empty()) {
    cloud_.terminate(id, d.last_exit);
    drains_.erase(id);
    return;
  }
  // Some pods wait: retry with back-off, and come back for the forced deletions and the end.
  const SimTime next = std::min({saturating_add(now, d.backoff), next_forced, d.deadline});
  d.backoff = std::min(d.backoff * 2, kEvictionMaxDelay);
  sim_.schedule_at(next, Phase::CloudAndNodes, *this, id);
}

void NodeTermination::on_event(SimTime now, std::uint64_t tag) {
  const auto id = static_cast<NodeId>(tag);
  if (drains_.contains(id)) step(id, now);
}

}  // namespace fleetsim
