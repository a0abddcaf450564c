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

NodeTermination::NodeTermination(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                                 CloudProvider& cloud, const PodDisruptionBudgets& pdbs,
                                 TerminationSettings settings)
    : sim_(sim),
      cluster_(cluster),
      bus_(bus),
      cloud_(cloud),
      pdbs_(pdbs),
      settings_(settings),
      api_(settings.api_latency, sim.rng("api-latency")) {}

void NodeTermination::delete_node(NodeId id, NodeDeletionReason reason, DrainLimits limits) {
  const Node& node = cluster_.node(id);
  if (!node.is_live()) return;
  const SimTime now = sim_.now();
  Drain d{.reason = reason, .karpenter = node.nodepool() != nullptr};
  if (limits.termination_grace_period)
    d.tgp_deadline = saturating_add(now, *limits.termination_grace_period);
  d.deadline = std::min(d.tgp_deadline, limits.instance_stops);
  const bool ever_ready = node.initialized;
  cluster_.begin_node_deletion(id, now, d.deadline, reason);
  bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeDeleting, .node = id, .reason = reason});
  cluster_.clear_nominations_to(id);
  Drain& drain = drains_.insert_or_assign(id, std::move(d)).first->second;
  if (!ever_ready) {
    terminate(id, now);  // no pod ever ran there: nothing to drain
  } else if (drain.karpenter) {
    // The NodeClaim's deletion, then the Node's (its finalizer), before the termination
    // controller takes the node; a limit ends the drain on the dot.
    const SimTime start = now + api_.next() + api_.next();
    sim_.schedule_at(start, Phase::CloudAndNodes, *this, Tag{Step::Poll, id}.pack());
    if (drain.deadline != kNever && drain.deadline > start)
      sim_.schedule_at(drain.deadline, Phase::CloudAndNodes, *this, Tag{Step::Poll, id}.pack());
  } else {
    evict_pass(id, drain, now, true);
    if (drain.in_flight == 0 && cluster_.node(id).pods.empty())
      terminate(id, std::max(now, drain.pods_gone));
  }
  bus_.capacity_changed();
}

void NodeTermination::evict(PodId p, NodeId node, Drain& d, SimTime now, bool gone_now) {
  const Pod& pod = cluster_.pod(p);
  // The pod runs out its grace period (the instance may stop first); then the kubelet deletes
  // its object, an API call of its own.
  SimTime gone = now;
  if (!gone_now) {
    gone = std::min(saturating_add(now, pod.spec->termination_grace), d.deadline);
    gone = std::min(saturating_add(gone, api_.next()), d.deadline);
  }
  d.pods_gone = std::max(d.pods_gone, gone);
  if (!critical(pod)) d.non_critical_gone = std::max(d.non_critical_gone, gone);
  // Karpenter's state sees the pod deleted (and re-opens consolidation) when its object goes.
  cluster_.finish(p, PodPhase::Deleted, now, gone > now);
  if (gone > now)
    sim_.schedule_at(gone, Phase::CloudAndNodes, *this, Tag{Step::ObjectGone, p}.pack());
  bus_.emit(SimEvent{.time = now,
                     .kind = EventKind::PodEvicted,
                     .node = node,
                     .pod = p,
                     .workload = pod.workload,
                     .reason = d.reason});
  bus_.pod_evicted(p, node);
}

void NodeTermination::evict_pass(NodeId id, Drain& d, SimTime now, bool retry) {
  const std::vector<PodId> bound = cluster_.node(id).pods;
  // Karpenter evicts one group at a time: critical pods only once no other pod is left, evicted
  // ones included until their objects are gone.
  const bool non_critical_left =
      now < d.non_critical_gone ||
      std::any_of(bound.begin(), bound.end(), [&](PodId p) { return !critical(cluster_.pod(p)); });
  SimTime next_forced = kNever;
  bool waiting = false, refused = false;
  for (PodId p : bound) {
    if (calls_.contains(p)) continue;
    const Pod& pod = cluster_.pod(p);
    const SimTime forced_at = minus(d.tgp_deadline, pod.spec->termination_grace);
    const bool forced = now >= forced_at;
    if (!forced) {
      next_forced = std::min(next_forced, forced_at);
      // A pod its controller already deletes is waited for, not evicted again (terminator.go
      // evicts only pods that are not terminating).
      if (pod.terminating || (critical(pod) && non_critical_left) ||
          do_not_disrupt_active(pod, now)) {
        waiting = true;
        continue;
      }
      if (!retry && d.refused.contains(p)) continue;  // its retry is on the back-off
      if (!pdbs_.eviction_allowed(pod)) {
        d.refused.insert(p);
        refused = true;
        continue;
      }
    }
    d.refused.erase(p);
    calls_[p] = Call{.node = id, .forced = forced};
    ++d.in_flight;
    sim_.schedule_at(now + api_.next(), Phase::CloudAndNodes, *this, Tag{Step::Evicted, p}.pack());
  }
  // Karpenter's polls look at waiting pods every second; refused evictions back off. A node
  // group's drain has only the back-off, which also wakes for the forced deletions.
  if (refused || (!d.karpenter && waiting)) schedule_retry(id, d, now, next_forced);
}

void NodeTermination::schedule_retry(NodeId id, Drain& d, SimTime now, SimTime next_forced) {
  if (d.retry_pending) return;
  const SimTime next =
      std::min({saturating_add(now, d.backoff), d.karpenter ? kNever : next_forced, d.deadline});
  d.backoff = std::min(d.backoff * 2, kEvictionMaxDelay);
  d.retry_pending = true;
  sim_.schedule_at(next, Phase::CloudAndNodes, *this, Tag{Step::Retry, id}.pack());
}

void NodeTermination::evicted(PodId p, SimTime now) {
  auto call = calls_.find(p);
  if (call == calls_.end()) return;
  const Call c = call->second;
  calls_.erase(call);
  auto it = drains_.find(c.node);
  if (it == drains_.end()) return;  // the instance stopped meanwhile
  Drain& d = it->second;
  --d.in_flight;
  const Pod* pod = cluster_.find_pod(p);
  if (pod != nullptr && pod->node == c.node && pod->phase == PodPhase::Running) {
    // The API server checks the budget when the call arrives, one call after another.
    if (!c.forced && !pdbs_.eviction_allowed(*pod)) {
      d.refused.insert(p);
      schedule_retry(c.node, d, now, kNever);
    } else {
      evict(p, c.node, d, now, false);
    }
  }
  if (!d.karpenter && d.in_flight == 0 && cluster_.node(c.node).pods.empty())
    terminate(c.node, std::max(now, d.pods_gone));
}

bool NodeTermination::drained(NodeId id, const Drain& d, SimTime now) const {
  return cluster_.node(id).pods.empty() && d.in_flight == 0 && now >= d.pods_gone &&
         now - d.drain_started >= settings_.min_drain_time;
}

void NodeTermination::terminate(NodeId id, SimTime at) {
  drains_.erase(id);
  cloud_.terminate(id, at);
}

void NodeTermination::on_event(SimTime now, std::uint64_t t) {
  const Tag tag = Tag::unpack(t);
  if (tag.kind == Step::Evicted) {
    evicted(tag.subject, now);
    return;
  }
  if (tag.kind == Step::ObjectGone) {
    cluster_.mark_unconsolidated(now);
    return;
  }
  const NodeId id = tag.subject;
  auto it = drains_.find(id);
  if (it == drains_.end()) return;
  Drain& d = it->second;
  if (tag.kind == Step::Retry) d.retry_pending = false;
  if (now >= d.deadline) {
    // The limit: what is left goes with the instance.
    for (PodId p : std::vector<PodId>(cluster_.node(id).pods)) evict(p, id, d, now, true);
    if (d.karpenter) cluster_.instance_terminating(id, now);
    terminate(id, now);
    return;
  }
  if (tag.kind == Step::Retry) {
    evict_pass(id, d, now, true);
    if (!d.karpenter && d.in_flight == 0 && cluster_.node(id).pods.empty())
      terminate(id, std::max(now, d.pods_gone));
    return;
  }
  // Karpenter's termination controller: Drained=Unknown on its first look, then a look every
  // second until Drained; then cloudProvider.Delete (InstanceTerminating) and a look every 5 s
  // until the instance is gone, the first of which finds it gone.
  if (d.drain_started == kNever) d.drain_started = now;
  evict_pass(id, d, now, false);
  if (!drained(id, d, now)) {
    sim_.schedule_at(now + kDrainPollInterval, Phase::CloudAndNodes, *this,
                     Tag{Step::Poll, id}.pack());
    return;
  }
  cluster_.instance_terminating(id, now);
  terminate(id, std::min(now + kInstancePollInterval, d.deadline));
}

}  // namespace fleetsim
