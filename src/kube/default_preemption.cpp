// kube-scheduler's DefaultPreemption PostFilter (framework/preemption/preemption.go Preempt):
// eligibility, the dry run over candidate nodes, the node choice, and the victims' deletion.
#include <algorithm>

#include "fleetsim/k8s/pod_fits.hpp"
#include "fleetsim/kube/kube_scheduler.hpp"
#include "fleetsim/kube/preemption_victims.hpp"

namespace fleetsim {

Resources KubeScheduler::room_for(const Pod& pod, const Node& node) const {
  // Pods assumed there at Permit hold their room too.
  Resources room =
      gang_.any_assumed() ? node.available() - gang_.reserved(node.id) : node.available();
  for (PodId id : nominated_) {
    const Pod* other = cluster_.find_pod(id);
    if (id == pod.id || other == nullptr || other->phase != PodPhase::Pending ||
        other->nominated_node_name != node.id || other->spec->priority < pod.spec->priority)
      continue;
    room -= other->spec->requests;
  }
  return room;
}

bool KubeScheduler::fits_beside_nominated(const Pod& pod, const Node& node) const {
  return pod.spec->requests.fits_in(room_for(pod, node));
}

bool KubeScheduler::nominated_node_fits(const Pod& pod) const {
  const Node& node = cluster_.node(pod.nominated_node_name);
  return node.phase == NodePhase::Initialized &&
         pod_fits(*pod.spec,
                  {.labels = node.labels, .taints = node.taints, .available = room_for(pod, node)},
                  PreferNoSchedule::Ignore) &&
         (pod.spec->resource_claims.empty() || cluster_.dra_fits(pod, node));
}

void KubeScheduler::delete_victim(PodId victim, const Pod& preemptor, SimTime now) {
  const Pod& v = cluster_.pod(victim);
  bus_.emit(SimEvent{.time = now,
                     .kind = EventKind::PodPreempted,
                     .node = v.node,
                     .pod = victim,
                     .workload = v.workload,
                     .message = preemptor.name});
  bus_.pod_preempted(victim);  // its controller replaces it
  // A DELETE with the pod's own grace period: it runs that out on its node, then goes.
  cluster_.pod_preempted(victim, now);
  bus_.pod_terminating(victim);
}

bool KubeScheduler::post_filter(const Pod& pod, const SchedulerProfile& profile,
                                const std::vector<std::uint8_t>* affinity_mask, SimTime now) {
  const SpreadConstraints spread = spread_constraints(cluster_, pod, profile.spread_defaults);
  if (!spread.hard.empty()) {
    spread_mask_.assign(cluster_.nodes().size(), 1);
    topology_spread_filter(cluster_, pod, spread, spread_mask_);
  }
  // Preemption weighs resources only: a node the pod's other filters refuse is not a candidate,
  // as upstream treats UnschedulableAndUnresolvable ones (affinity and spread are taken with the
  // victims still there).
  auto passes = [&](NodeId n) {
    const Node& node = cluster_.node(n);
    return node.phase == NodePhase::Initialized &&
           blocking_taint(*pod.spec, node.taints, PreferNoSchedule::Ignore) == nullptr &&
           node_selection_allows(*pod.spec, node.labels) &&
           (affinity_mask == nullptr || (*affinity_mask)[n] != 0) &&
           (spread.hard.empty() || spread_mask_[n] != 0);
  };
  return preempt(pod, profile, now, passes);
}

bool KubeScheduler::preempt(const Pod& pod, const SchedulerProfile& profile, SimTime now,
                            const std::function<bool(NodeId)>& passes) {
  // PodEligibleToPreemptOthers: not while pods it preempted still terminate on its node.
  if (const NodeId nominated = pod.nominated_node_name; nominated != kNoNode && passes(nominated)) {
    for (PodId id : cluster_.node(nominated).pods) {
      const Pod& p = cluster_.pod(id);
      if (p.preempted && p.spec->priority < pod.spec->priority) return true;
    }
  }
  // findCandidates: the nodes only resources keep it off, from a random offset, until enough
  // candidates are found (one that violates no PDB among them); DryRunPreemption lists those
  // that violate none first.
  std::vector<NodeId> potential;
  for (NodeId n : order_)
    if (passes(n)) potential.push_back(n);
  std::vector<NodeVictims> candidates, violating;
  if (!potential.empty()) {
    const std::vector<std::int64_t> allowed = pdb_allowances(pdbs_);
    const std::size_t wanted =
        preemption_candidates_wanted(potential.size(), profile.min_candidate_nodes_percentage,
                                     profile.min_candidate_nodes_absolute);
    const std::size_t offset = preemption_rng_.below(potential.size());
    for (std::size_t i = 0; i < potential.size(); ++i) {
      const NodeId n = potential[(offset + i) % potential.size()];
      NodeVictims v =
          select_victims_on_node(cluster_, pod, n, room_for(pod, cluster_.node(n)), pdbs_, allowed);
      if (v.pods.empty()) continue;
      (v.pdb_violations == 0 ? candidates : violating).push_back(std::move(v));
      if (!candidates.empty() && candidates.size() + violating.size() >= wanted) break;
    }
  }
  candidates.insert(candidates.end(), std::make_move_iterator(violating.begin()),
                    std::make_move_iterator(violating.end()));
  if (candidates.empty()) {
    // Preemption does not help: the pod's nomination is cleared.
    cluster_.set_nominated_node_name(pod.id, kNoNode);
    return false;
  }
  const NodeVictims& best = candidates[pick_one_node(cluster_, candidates)];
  // prepareCandidate: the victims not already going are deleted; lower-priority pods nominated
  // to the node lose their nomination and are tried again at once.
  for (PodId victim : best.pods)
    if (!cluster_.pod(victim).terminating) delete_victim(victim, pod, now);
  std::vector<PodId> cleared;
  for (PodId id : nominated_) {
    const Pod* other = cluster_.find_pod(id);
    if (other != nullptr && other->nominated_node_name == best.node &&
        other->spec->priority < pod.spec->priority) {
      cluster_.set_nominated_node_name(id, kNoNode);
      cleared.push_back(id);
    }
  }
  if (!cleared.empty()) {
    queue_.move(cluster_, [&](const Pod& p) {
      return std::find(cleared.begin(), cleared.end(), p.id) != cleared.end();
    });
  }
  if (pod.nominated_node_name == kNoNode) nominated_.push_back(pod.id);
  cluster_.set_nominated_node_name(pod.id, best.node);
  return true;
}

}  // namespace fleetsim
