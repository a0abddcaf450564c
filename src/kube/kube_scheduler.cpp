#include "fleetsim/kube/kube_scheduler.hpp"

#include <algorithm>
#include <optional>
#include <type_traits>

#include "fleetsim/core/stop_flag.hpp"
#include "fleetsim/k8s/pod_fits.hpp"
#include "fleetsim/kube/inter_pod_affinity.hpp"
#include "fleetsim/kube/preference_scores.hpp"
#include "fleetsim/kube/resource_scores.hpp"

namespace fleetsim {

namespace {

constexpr std::uint64_t kWakeTag = 1;  // a backoff ends or the 30 s flush is due
constexpr std::uint64_t kGangTag = 2;  // a PodGroup's Permit deadline

}  // namespace

KubeScheduler::KubeScheduler(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                             std::function<void(PodId)> on_unschedulable,
                             std::vector<SchedulerProfile> profiles)
    : sim_(sim),
      cluster_(cluster),
      bus_(bus),
      on_unschedulable_(std::move(on_unschedulable)),
      profiles_(std::move(profiles)),
      preemption_rng_(sim.rng("kube-scheduler-preemption")),
      rng_(sim.rng("kube-scheduler")) {}

void KubeScheduler::request_pass() {
  if (sim_.is_pending(pass_)) return;
  pass_ = sim_.schedule_at(sim_.now(), Phase::PodLifecycle, *this);
}

void KubeScheduler::cluster_changed() {
  queue_.move(cluster_);
  request_pass();
}

void KubeScheduler::order_nodes() {
  // The snapshot's node list: every node the API server knows, its zones taken in turn
  // (nodeTree.list), each zone's nodes in the order they joined.
  zones_.clear();
  for (NodeId id : cluster_.active_nodes()) {
    const Node& n = cluster_.node(id);
    if (n.phase < NodePhase::Registered) continue;
    auto zone = std::find_if(zones_.begin(), zones_.end(),
                             [&](const auto& z) { return z.first == n.zone; });
    if (zone == zones_.end()) zone = zones_.insert(zones_.end(), {n.zone, {}});
    zone->second.push_back(id);
  }
  order_.clear();
  for (std::size_t i = 0; order_.size() < cluster_.active_nodes().size(); ++i) {
    bool any = false;
    for (const auto& [zone, ids] : zones_) {
      if (i >= ids.size()) continue;
      order_.push_back(ids[i]);
      any = true;
    }
    if (!any) break;
  }
}

std::size_t KubeScheduler::nodes_to_find(std::size_t all, std::int32_t configured) {
  // schedule_one.go numFeasibleNodesToFind; percentageOfNodesToScore 0 is adaptive.
  constexpr std::size_t kMinFeasibleNodes = 100;
  constexpr std::size_t kMinPercentage = 5;
  if (all < kMinFeasibleNodes) return all;
  std::size_t percentage = static_cast<std::size_t>(configured);
  if (percentage == 0)
    percentage = std::max<std::size_t>(kMinPercentage, all / 125 >= 50 ? 0 : 50 - all / 125);
  return std::max(kMinFeasibleNodes, all * percentage / 100);
}

NodeId KubeScheduler::select_host(const Pod& pod, const SchedulerProfile& profile,
                                  const SpreadConstraints& spread) {
  if (feasible_.empty()) return kNoNode;
  if (feasible_.size() == 1) return feasible_.front();  // schedule_one.go: no scoring for one
  const std::size_t count = feasible_.size();
  totals_.assign(count, 0);
  scores_.resize(count);
  auto add = [&](std::int64_t weight) {
    for (std::size_t i = 0; i < count; ++i) totals_[i] += weight * scores_[i];
  };
  const ScoreWeights& w = profile.weights;
  const PodSpec& spec = *pod.spec;
  if (w.node_resources_fit != 0) {
    for (std::size_t i = 0; i < count; ++i) {
      const Node& n = cluster_.node(feasible_[i]);
      scores_[i] =
          fit_score(profile.fit, n.scoring_requested + n.daemon_overhead + spec.scoring_requests(),
                    n.allocatable, spec.requests);
    }
    add(w.node_resources_fit);
  }
  // Skipped for a pod that requests none of the resources (Kubernetes 1.33, #130260).
  const bool requests_some =
      std::any_of(profile.balanced_resources.begin(), profile.balanced_resources.end(),
                  [&](ResourceIndex r) { return r != resource::kPods && spec.requests[r] != 0; });
  if (w.balanced_allocation != 0 && requests_some) {
    for (std::size_t i = 0; i < count; ++i) {
      const Node& n = cluster_.node(feasible_[i]);
      scores_[i] = balanced_allocation_score(profile.balanced_resources,
                                             n.requested + n.daemon_overhead + spec.requests,
                                             n.allocatable, spec.requests);
    }
    add(w.balanced_allocation);
  }
  if (w.taint_toleration != 0) {
    for (std::size_t i = 0; i < count; ++i)
      scores_[i] = intolerable_preferences(spec, cluster_.node(feasible_[i]).taints);
    default_normalize(scores_, true);
    add(w.taint_toleration);
  }
  if (w.node_affinity != 0 && !spec.preferred_node_terms.empty()) {
    for (std::size_t i = 0; i < count; ++i)
      scores_[i] = preferred_affinity_weight(spec, cluster_.node(feasible_[i]).labels);
    default_normalize(scores_, false);
    add(w.node_affinity);
  }
  if (w.pod_topology_spread != 0 && !spread.soft.empty()) {
    topology_spread_score(cluster_, pod, spread, feasible_, scores_);
    add(w.pod_topology_spread);
  }
  if (w.inter_pod_affinity != 0 &&
      inter_pod_affinity_score(cluster_, pod, feasible_, scores_, profile.hard_pod_affinity_weight))
    add(w.inter_pod_affinity);
  if (w.image_locality != 0 && node_images_ != nullptr &&
      node_images_->score(cluster_, *pod.spec, feasible_, scores_))
    add(w.image_locality);
  // selectHost: uniformly at random among the highest totals (reservoir sampling).
  std::size_t best = 0, tied = 1;
  for (std::size_t i = 1; i < count; ++i) {
    if (totals_[i] > totals_[best]) {
      best = i;
      tied = 1;
    } else if (totals_[i] == totals_[best] && rng_.below(++tied) == 0) {
      best = i;
    }
  }
  return feasible_[best];
}

bool KubeScheduler::feasible(const Pod& pod, const Node& node) const {
  // The scheduler's cache counts the pods assumed at Permit on the node.
  const Resources available =
      gang_.any_assumed() ? node.available() - gang_.reserved(node.id) : node.available();
  return node.phase == NodePhase::Initialized &&
         pod_fits(*pod.spec, {.labels = node.labels, .taints = node.taints, .available = available},
                  PreferNoSchedule::Ignore) &&
         // DynamicResources' Filter, for the few pods with claims (dra_allocation.cpp).
         (pod.spec->resource_claims.empty() || cluster_.dra_fits(pod, node));
}

void KubeScheduler::bind_pod(PodId id, NodeId node, SimTime now) {
  const Pod& pod = cluster_.pod(id);
  cluster_.bind(id, node, now);
  bus_.emit(SimEvent{.time = now,
                     .kind = EventKind::PodScheduled,
                     .node = node,
                     .pod = id,
                     .workload = pod.workload});
  bus_.pod_bound(id);
}

void KubeScheduler::reject_waiting(PodId id, NodeId node, std::string_view why, bool timed_out,
                                   SimTime now) {
  const Pod& pod = cluster_.pod(id);
  cluster_.set_permit_node(id, kNoNode);
  bus_.emit(SimEvent{.time = now,
                     .kind = EventKind::PodPermitRejected,
                     .node = node,
                     .pod = id,
                     .workload = pod.workload,
                     .message = why});
  // handleSchedulingFailure: Unschedulable (PodScheduled=False), to the unschedulable pool.
  queue_.failed(pod, now, /*permit_rejected=*/timed_out);
  on_unschedulable_(id);
}

void KubeScheduler::gang_pass(SimTime now) {
  if (!gang_.enabled()) return;
  bool rejected = false;
  for (const GangGate::Assumed& a : std::vector<GangGate::Assumed>(gang_.refresh(cluster_))) {
    gang_.reject(a.pod);
    reject_waiting(a.pod, a.node, "node going away", /*timed_out=*/false, now);
    rejected = true;
  }
  for (auto& [group, pods] : gang_.expire(now)) {
    rejected = true;
    const std::string why = "PodGroup " + group + " timed out at Permit";
    for (const GangGate::Assumed& a : pods)
      reject_waiting(a.pod, a.node, why, /*timed_out=*/true, now);
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::PodGroupTimeout,
                       .workload = cluster_.pod(pods.front().pod).workload,
                       .message = group,
                       .pods = static_cast<std::int32_t>(pods.size())});
  }
  // handleBindingCycleError: forgetting an assumed pod is an AssignedPodDelete event, so the
  // pods that failed for room are tried again (not the rejected ones: GangScheduling registers
  // no such event).
  if (rejected) queue_.move(cluster_);
  // PreEnqueue: a gang short of pods is never tried, so no provisioner sees its pods.
  for (PodId id : cluster_.pending_pods()) {
    const Pod& p = cluster_.pod(id);
    if (p.spec->pod_group.empty()) continue;
    const bool gated = !gang_.admits(p);
    if (gated != p.gated) cluster_.set_gated(id, gated);
  }
}

bool KubeScheduler::gang_permit(const Pod& pod, NodeId node, SimTime now) {
  const GangGate::Permit permit = gang_.reserve(pod, node, now);
  if (permit == GangGate::Permit::NotAGang) return false;
  const std::string group = GangGate::key(pod);
  if (permit == GangGate::Permit::Wait) {
    cluster_.set_permit_node(pod.id, node);
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::PodWaitingOnPermit,
                       .node = node,
                       .pod = pod.id,
                       .workload = pod.workload,
                       .message = group});
    // Activate: the group's pods in the unschedulable pool are tried again.
    queue_.activate(cluster_, [&](const Pod& p) { return GangGate::same_group(p, pod); });
    request_pass();
    return true;
  }
  // The quorum is met: every waiting pod of the group binds, this one with them.
  for (const GangGate::Assumed& a : gang_.take_allowed(pod)) {
    cluster_.set_permit_node(a.pod, kNoNode);
    bind_pod(a.pod, a.node, now);
  }
  return true;
}

void KubeScheduler::on_event(SimTime now, std::uint64_t tag) {
  if (tag == kWakeTag) queue_.flush_leftover(now);
  gang_pass(now);
  queue_.active(cluster_, now, pods_);
  order_nodes();
  // Nominations end when the pod binds or goes, or preemption gives its node up.
  std::erase_if(nominated_, [this](PodId id) {
    const Pod* p = cluster_.find_pod(id);
    return p == nullptr || p->phase != PodPhase::Pending || p->nominated_node_name == kNoNode;
  });
  bool any_bound = false;

  bool running_anti = cluster_.bound_with_anti_affinity() > 0;
  std::vector<std::uint8_t> affinity_mask;
  // Pods alike (one spec, namespace and labels: a workload's) get the same answers until a bind
  // changes what runs, so the affinity mask and a scan that found no node are worked out once
  // for them, not per pod: per pod, 3,000 pods that must be apart took minutes.
  const Pod* mask_of = nullptr;      // the pod affinity_mask was worked out for
  const Pod* no_node_for = nullptr;  // a pod no node could take since the last bind
  auto alike = [](const Pod* a, const Pod& b) {
    return a != nullptr && a->spec == b.spec && a->namespace_name == b.namespace_name &&
           (a->labels == b.labels ||
            (a->labels != nullptr && b.labels != nullptr && *a->labels == *b.labels));
  };
  for (const Pod* queued : pods_) {
    throw_if_stop_requested();  // a pass over thousands of pods and nodes takes a while
    const Pod& pod = *queued;
    const PodId id = pod.id;
    // Held at PreEnqueue, or assumed and waiting at Permit (in its binding cycle).
    // A pod its group's quorum bound earlier in this pass is done too.
    if (pod.gated || pod.permit_node != kNoNode || pod.phase != PodPhase::Pending) continue;
    // A pod whose spec.schedulerName names no profile is no scheduler's: it stays Pending.
    const std::int32_t profile_index = pod.spec->scheduler_profile;
    if (profile_index < 0 || static_cast<std::size_t>(profile_index) >= profiles_.size()) continue;
    const SchedulerProfile& profile = profiles_[static_cast<std::size_t>(profile_index)];
    // Inter-pod affinity is worked out only where some pod asks for it.
    const bool check_affinity = running_anti || !pod.spec->pod_affinity.required.empty() ||
                                !pod.spec->pod_anti_affinity.required.empty();
    if (check_affinity && !alike(mask_of, pod)) {
      inter_pod_affinity_mask(cluster_, pod, affinity_mask);
      mask_of = &pod;
    }
    // Karpenter's nomination is its own plan, not status.nominatedNodeName: the pod goes where
    // the scores send it, as the real kube-scheduler does.
    NodeId chosen = kNoNode;
    if (!alike(no_node_for, pod)) {
      const SpreadConstraints spread = spread_constraints(cluster_, pod, profile.spread_defaults);
      if (!spread.hard.empty()) {
        spread_mask_.assign(cluster_.nodes().size(), 1);
        topology_spread_filter(cluster_, pod, spread, spread_mask_);
      }
      // A pod nominated by preemption tries its node first (evaluateNominatedNode).
      const NodeId nominated = pod.nominated_node_name;
      feasible_.clear();
      if (nominated != kNoNode && nominated_node_fits(pod) &&
          (!check_affinity || affinity_mask[nominated] != 0) &&
          (spread.hard.empty() || spread_mask_[nominated] != 0))
        feasible_.push_back(nominated);
      // Nodes are checked from where the last pod's search stopped, until enough fit.
      const std::size_t all = feasible_.empty() ? order_.size() : 0,
                        wanted = nodes_to_find(all, profile.percentage_of_nodes_to_score);
      std::size_t checked = 0;
      // The room kept for pods nominated by preemption is looked at only while there are some:
      // the loop without them is the one the binding path runs, with no check added.
      auto search = [&](auto nominations) {
        for (; checked < all && feasible_.size() < wanted; ++checked) {
          const NodeId n = order_[(next_start_ + checked) % all];
          if (feasible(pod, cluster_.node(n)) &&
              (!nominations || fits_beside_nominated(pod, cluster_.node(n))) &&
              (!check_affinity || affinity_mask[n] != 0) &&
              (spread.hard.empty() || spread_mask_[n] != 0))
            feasible_.push_back(n);
        }
      };
      if (nominated_.empty()) {
        search(std::false_type{});
      } else {
        search(std::true_type{});
      }
      if (all != 0) next_start_ = (next_start_ + checked) % all;
      chosen = select_host(pod, profile, spread);
    }
    if (chosen == kNoNode) {
      no_node_for = &pod;
      // Before preemption: its victims' going moves the pod on to the backoff queue.
      queue_.failed(pod, now);
      if (profile.preemption && may_preempt(pod) &&
          post_filter(pod, profile, check_affinity ? &affinity_mask : nullptr, now))
        continue;
      // A pod waiting for its nominated node to start stays quiet; once that node is up and
      // has no room for it, Karpenter must plan again.
      const bool awaiting_node =
          pod.nominated != kNoNode && cluster_.node(pod.nominated).phase < NodePhase::Initialized;
      if (!awaiting_node) on_unschedulable_(id);
      continue;
    }
    if (gang_.enabled() && gang_permit(pod, chosen, now)) {
      any_bound = true;  // a group's pods may have bound
      mask_of = no_node_for = nullptr;
      running_anti = cluster_.bound_with_anti_affinity() > 0;
      continue;
    }
    running_anti = running_anti || !pod.spec->pod_anti_affinity.required.empty();
    bind_pod(id, chosen, now);
    any_bound = true;
    mask_of = no_node_for = nullptr;
  }
  // A bound pod may be what a pod with required affinity or a hard spread constraint waits for
  // (InterPodAffinity's and PodTopologySpread's AssignedPodAdd events).
  if (any_bound)
    queue_.move(cluster_, [this](const Pod& p) {
      auto hard = [](const TopologySpread& t) {
        return t.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule;
      };
      const auto& own = p.spec->topology_spread;
      if (!p.spec->pod_affinity.required.empty() || std::any_of(own.begin(), own.end(), hard))
        return true;
      // A profile's List of default constraints may hold DoNotSchedule ones.
      const std::int32_t i = p.spec->scheduler_profile;
      if (!own.empty() || i < 0 || static_cast<std::size_t>(i) >= profiles_.size()) return false;
      const SpreadDefaults& d = profiles_[static_cast<std::size_t>(i)].spread_defaults;
      return !d.system && std::any_of(d.list.begin(), d.list.end(), hard);
    });
  if (const std::optional<SimTime> deadline = gang_.next_deadline()) {
    if (!sim_.is_pending(gang_wake_) || gang_wake_at_ != *deadline) {
      sim_.cancel(gang_wake_);
      gang_wake_ = sim_.schedule_at(std::max(*deadline, now), Phase::PodLifecycle, *this, kGangTag);
      gang_wake_at_ = *deadline;
    }
  }
  if (const std::optional<SimTime> wake = queue_.next_wake(now)) {
    if (!sim_.is_pending(wake_) || wake_at_ != *wake) {
      sim_.cancel(wake_);
      wake_ = sim_.schedule_at(*wake, Phase::PodLifecycle, *this, kWakeTag);
      wake_at_ = *wake;
    }
  }
}

}  // namespace fleetsim
