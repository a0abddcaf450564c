#include "fleetsim/kube/kube_scheduler.hpp"

#include <algorithm>
#include <optional>

#include "fleetsim/core/stop_flag.hpp"
#include "fleetsim/k8s/pod_fits.hpp"
#include "fleetsim/kube/inter_pod_affinity.hpp"

namespace fleetsim {

KubeScheduler::KubeScheduler(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                             std::function<void(PodId)> on_unschedulable)
    : sim_(sim), cluster_(cluster), bus_(bus), on_unschedulable_(std::move(on_unschedulable)) {}

void KubeScheduler::request_pass() {
  if (sim_.is_pending(pass_)) return;
  pass_ = sim_.schedule_at(sim_.now(), Phase::PodLifecycle, *this);
}

bool KubeScheduler::feasible(const Pod& pod, const Node& node) const {
  return node.phase == NodePhase::Initialized &&
         pod_fits(*pod.spec,
                  {.labels = node.labels, .taints = node.taints, .available = node.available()},
                  PreferNoSchedule::Ignore);
}

void KubeScheduler::on_event(SimTime now, std::uint64_t) {
  // The scheduling queue: higher priority first, then older pods.
  std::vector<PodId> queue = cluster_.pending_pods();
  std::stable_sort(queue.begin(), queue.end(), [&](PodId a, PodId b) {
    const Pod& pa = cluster_.pod(a);
    const Pod& pb = cluster_.pod(b);
    if (pa.spec->priority != pb.spec->priority) return pa.spec->priority > pb.spec->priority;
    return pa.created < pb.created;
  });

  bool running_anti = !queue.empty() && any_running_anti_affinity(cluster_);
  std::vector<std::uint8_t> affinity_mask;
  // Pods alike (one spec, namespace and labels: a workload's) get the same answers until a bind
  // changes what runs, so the affinity mask and a scan that found no node are worked out once
  // for them, not per pod: per pod, 3,000 pods that must be apart took minutes.
  std::optional<PodId> mask_of;      // the pod affinity_mask was worked out for
  std::optional<PodId> no_node_for;  // a pod no node could take since the last bind
  auto alike = [&](std::optional<PodId> id, const Pod& b) {
    if (!id) return false;
    const Pod& a = cluster_.pod(*id);
    return a.spec == b.spec && a.namespace_name == b.namespace_name &&
           (a.labels == b.labels ||
            (a.labels != nullptr && b.labels != nullptr && *a.labels == *b.labels));
  };
  for (PodId id : queue) {
    throw_if_stop_requested();  // a pass over thousands of pods and nodes takes a while
    const Pod& pod = cluster_.pod(id);
    // Inter-pod affinity is worked out only where some pod asks for it.
    const bool check_affinity = running_anti || !pod.spec->pod_affinity.required.empty() ||
                                !pod.spec->pod_anti_affinity.required.empty();
    if (check_affinity && !alike(mask_of, pod)) {
      inter_pod_affinity_mask(cluster_, pod, affinity_mask);
      mask_of = id;
    }
    auto fits = [&](const Node& n) {
      return feasible(pod, n) && (!check_affinity || affinity_mask[n.id] != 0);
    };
    // Karpenter's nomination is its own plan, not status.nominatedNodeName: the pod goes where
    // the scores send it, as the real kube-scheduler does.
    NodeId chosen = kNoNode;
    if (!alike(no_node_for, pod)) {
      double best = 2.0;
      for (NodeId id : cluster_.active_nodes()) {
        const Node& n = cluster_.node(id);
        if (!fits(n)) continue;
        Resources after = n.allocatable - n.available() + pod.spec->requests;
        double cpu = static_cast<double>(after.cpu_millis()) /
                     static_cast<double>(std::max<std::int64_t>(1, n.allocatable.cpu_millis()));
        double mem = static_cast<double>(after.memory_bytes()) /
                     static_cast<double>(std::max<std::int64_t>(1, n.allocatable.memory_bytes()));
        double score = (cpu + mem) / 2;
        if (score < best ||
            (score == best && chosen != kNoNode && n.name < cluster_.node(chosen).name)) {
          best = score;
          chosen = n.id;
        }
      }
    }
    if (chosen == kNoNode) {
      no_node_for = id;
      // A pod waiting for its nominated node to start stays quiet; once that node is up and
      // has no room for it, Karpenter must plan again.
      const bool awaiting_node =
          pod.nominated != kNoNode && cluster_.node(pod.nominated).phase < NodePhase::Initialized;
      if (!awaiting_node) on_unschedulable_(id);
      continue;
    }
    cluster_.bind(id, chosen, now);
    mask_of = no_node_for = std::nullopt;
    running_anti = running_anti || !pod.spec->pod_anti_affinity.required.empty();
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::PodScheduled,
                       .node = chosen,
                       .pod = id,
                       .workload = pod.workload});
    bus_.pod_bound(id);
  }
}

}  // namespace fleetsim
