#include "fleetsim/kube/kubelet.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fleetsim {

void Kubelet::manage(WorkloadId workload, PodStartupProfile profile, PodWorkListener* listener) {
  if (managed_.size() <= workload) managed_.resize(workload + 1);
  managed_[workload] = Managed{.profile = profile, .listener = listener};
}

const Kubelet::Managed* Kubelet::managed(WorkloadId workload) const {
  return workload < managed_.size() && managed_[workload] ? &*managed_[workload] : nullptr;
}

NodeImageStore& Kubelet::images(NodeId node) {
  if (node >= images_.size()) images_.resize(node + 1);
  if (!images_[node]) images_[node].emplace(bytes_per_second_);
  return *images_[node];
}

bool Kubelet::admits(PodId id) const {
  const Pod& pod = cluster_.pod(id);
  return gpu_admission_error(cluster_.node(pod.node).gpu_setup, pod.spec->requests).empty();
}

void Kubelet::fail_admission(PodId id) {
  const Pod& p = cluster_.pod(id);
  const NodeId node = p.node;
  const std::string why = gpu_admission_error(cluster_.node(node).gpu_setup, p.spec->requests);
  cluster_.finish(id, PodPhase::Deleted, sim_.now());
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::PodDeleted,
                     .node = node,
                     .pod = id,
                     .workload = p.workload,
                     .reason = PodDeletionReason::AdmissionFailed,
                     .message = why});
  bus_.capacity_changed();
}

void Kubelet::on_bound(PodId id) {
  const Pod& pod = cluster_.pod(id);
  const PodSpec& spec = *pod.spec;
  const SimTime now = sim_.now();
  const Managed* m = managed(pod.workload);
  if (m == nullptr) {
    // Nothing to pull or load: the containers start now, and the pod is Ready now unless its
    // probes say later.
    cluster_.pod_started(id);
    if (!spec.startup_probe && !spec.readiness_probe) {
      become_ready(id);
    } else {
      sim_.schedule_at(pod_ready_time(now, now, now, spec.startup_probe, spec.readiness_probe),
                       Phase::PodLifecycle, *this, Tag{Step::Ready, id}.pack());
    }
    return;
  }
  if (m->listener != nullptr) m->listener->on_pod_bound(id);
  const std::string image = spec.images.empty() ? std::string() : spec.images.front();
  const SimTime started = images(pod.node).available_at(image, m->profile.image_bytes, now);
  const SimTime server_up = saturating_add(started, m->profile.model_load);
  const SimTime ready =
      pod_ready_time(now, started, server_up, spec.startup_probe, spec.readiness_probe);
  sim_.schedule_at(started, Phase::PodLifecycle, *this, Tag{Step::Started, id}.pack());
  sim_.schedule_at(ready, Phase::PodLifecycle, *this, Tag{Step::Ready, id}.pack());
}

void Kubelet::on_event(SimTime now, std::uint64_t tag) {
  const Tag event = Tag::unpack(tag);
  const PodId id = event.subject;
  const Pod* found = cluster_.find_pod(id);
  if (found == nullptr) return;  // ended and released: nothing left to start or stop
  const Pod& pod = *found;
  // A start or Ready of an attempt the container crashed in is stale.
  if (event.kind != Step::GraceEnd && !Tag::same_generation(event.generation, attempt(id))) return;
  switch (event.kind) {
    case Step::Started: {
      if (pod.phase != PodPhase::Running) break;
      const Managed* m = managed(pod.workload);
      // Its image is pulled: the node reports it from now on (node.status.images).
      if (event.generation == 0 && m != nullptr && m->profile.image_bytes > 0 &&
          !pod.spec->images.empty())
        node_images_.pulled(pod.node, pod.spec->images.front(), m->profile.image_bytes);
      if (m != nullptr && m->listener != nullptr && !pod.terminating) {
        if (const std::string why = m->listener->start_failure(id); !why.empty()) {
          crash(id, why);
          break;
        }
      }
      cluster_.pod_started(id);
      if (event.generation != 0 && !pod.terminating) {
        // A restart: the image is on the node; the model loads and the probes pass again.
        const SimTime ready = pod_ready_time(now, now, saturating_add(now, m->profile.model_load),
                                             pod.spec->startup_probe, pod.spec->readiness_probe);
        sim_.schedule_at(ready, Phase::PodLifecycle, *this,
                         Tag{Step::Ready, id, event.generation}.pack());
      }
      break;
    }
    case Step::Ready:
      if (pod.phase == PodPhase::Running && !pod.terminating) become_ready(id);
      break;
    case Step::GraceEnd:
      if (const Managed* m = managed(pod.workload); m != nullptr && m->listener != nullptr)
        m->listener->on_pod_killed(id);
      exit(id);
      break;
  }
}

std::uint32_t Kubelet::attempt(PodId id) const {
  const auto it = crash_loops_.find(id);
  return it == crash_loops_.end() ? 0 : it->second.restarts;
}

// kubelet's backOff.Next (client-go flowcontrol.Backoff): the first crash, or one more than twice
// the maximum after the last, waits the initial 10 s; each other doubles the wait, to 5 min.
void Kubelet::crash(PodId id, const std::string& why) {
  constexpr SimDuration kInitialBackoff = seconds(10);
  constexpr SimDuration kMaxBackoff = minutes(5);
  const SimTime now = sim_.now();
  CrashLoop& c = crash_loops_[id];
  if (c.restarts == 0 || now - c.last_update > 2 * kMaxBackoff) {
    c.backoff = kInitialBackoff;
  } else {
    c.backoff = std::min(c.backoff * 2, kMaxBackoff);
  }
  c.last_update = now;
  ++c.restarts;
  const Pod& pod = cluster_.pod(id);
  const std::string message =
      fmt::format("{}; restart {} in {} s (CrashLoopBackOff)", why, c.restarts,
                  std::chrono::duration_cast<std::chrono::seconds>(c.backoff).count());
  bus_.emit(SimEvent{.time = now,
                     .kind = EventKind::PodCrashed,
                     .node = pod.node,
                     .pod = id,
                     .workload = pod.workload,
                     .message = message});
  sim_.schedule_at(now + c.backoff, Phase::PodLifecycle, *this,
                   Tag{Step::Started, id, c.restarts}.pack());
}

void Kubelet::become_ready(PodId id) {
  cluster_.pod_ready(id, sim_.now());
  const Pod& pod = cluster_.pod(id);
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::PodReady,
                     .node = pod.node,
                     .pod = id,
                     .workload = pod.workload});
  if (const Managed* m = managed(pod.workload); m != nullptr && m->listener != nullptr)
    m->listener->on_pod_ready(id);
}

void Kubelet::on_terminating(PodId id) {
  drain(id, saturating_add(sim_.now(), cluster_.pod(id).spec->termination_grace));
}

void Kubelet::on_evicted(PodId id, NodeId node) {
  // The instance may go before the grace period ends (a spot interruption's two minutes).
  drain(id, std::min(saturating_add(sim_.now(), cluster_.pod(id).spec->termination_grace),
                     cluster_.node(node).terminates_at));
}

// The pod leaves the endpoints at once; its work may go on until `deadline`.
void Kubelet::drain(PodId id, SimTime deadline) {
  const Managed* m = managed(cluster_.pod(id).workload);
  if (m == nullptr || m->listener == nullptr) {
    exit(id);  // nothing runs in it that could delay its exit
    return;
  }
  cluster_.pod_unready(id);
  sim_.schedule_at(deadline, Phase::PodLifecycle, *this, Tag{Step::GraceEnd, id}.pack());
  m->listener->on_pod_draining(id);  // may call work_done at once
}

void Kubelet::work_done(PodId id) { exit(id); }

// A terminating pod that is still on its node leaves it; an evicted one is already gone.
void Kubelet::exit(PodId id) {
  const Pod& p = cluster_.pod(id);
  if (!p.terminating || p.phase != PodPhase::Running) return;
  const NodeId node = p.node;
  crash_loops_.erase(id);
  cluster_.finish(id, PodPhase::Deleted, sim_.now());
  bus_.emit(SimEvent{
      .time = sim_.now(),
      .kind = EventKind::PodDeleted,
      .node = node,
      .pod = id,
      .workload = p.workload,
      .reason = p.preempted ? PodDeletionReason::Preempted : PodDeletionReason::ScaleDown});
  bus_.capacity_changed();
}

}  // namespace fleetsim
