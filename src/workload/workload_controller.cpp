#include "fleetsim/workload/workload_controller.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/workload/scale_down_order.hpp"

namespace fleetsim {

namespace {

// replica_set.go BurstReplicas and job_controller.go MaxPodCreateDeletePerSync: the most pods one
// sync creates or deletes.
constexpr std::int32_t kBurstReplicas = 500;
// controller_utils.go SlowStartInitialBatchSize: the first batch of a sync's creations.
constexpr std::int32_t kSlowStartInitialBatchSize = 1;
// --concurrent-replicaset-syncs and --concurrent-job-syncs: kube-controller-manager's default
// workers per controller.
constexpr std::int32_t kConcurrentSyncs = 5;

// The accelerator resource a template asks for, so a trace's `gpus` column lands on it.
ResourceIndex accelerator_of(const PodSpec& spec) {
  for (ResourceIndex r :
       {resource::kNvidiaGpu, resource::kAmdGpu, resource::kNeuron, resource::kGaudi})
    if (spec.requests[r] > 0) return r;
  return resource::kNvidiaGpu;
}

}  // namespace

WorkloadController::WorkloadController(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                                       ApiLimits api)
    : sim_(sim),
      cluster_(cluster),
      bus_(bus),
      names_(sim.rng("pod-names")),
      uids_(sim.rng("pod-uids")),
      replica_sets_(api),
      jobs_(api) {}

WorkloadId WorkloadController::add(const Workload& workload, SimTime at, std::string_view group) {
  State s;
  s.def = workload;
  s.id = cluster_.add_workload(
      WorkloadRecord{.name = group.empty() ? workload.name : std::string(group),
                     .kind = workload.kind,
                     .namespace_name = workload.namespace_name});
  const WorkloadId id = s.id;
  states_.emplace(id, std::move(s));
  sim_.schedule_at(std::max(at, sim_.now()), Phase::Workload, *this, tag(Action::Create, id));
  return id;
}

WorkloadController::State& WorkloadController::state(WorkloadId id) {
  auto it = states_.find(id);
  FLEETSIM_ASSERT(it != states_.end());
  return it->second;
}

const PodTemplate& WorkloadController::pod_template(WorkloadId workload) const {
  const State& s = state(workload);
  return s.templates.empty() ? s.def.pod : s.templates.back();
}

const WorkloadController::State& WorkloadController::state(WorkloadId id) const {
  auto it = states_.find(id);
  FLEETSIM_ASSERT(it != states_.end());
  return it->second;
}

void WorkloadController::forget_pods(std::span<const WorkloadId> released) {
  for (WorkloadId id : released) {
    State& s = state(id);
    --s.pods_held;
    const bool finished = (s.def.kind == WorkloadKind::Job && s.succeeded >= s.def.completions) ||
                          (s.def.kind == WorkloadKind::Pod && s.succeeded > 0);
    if (finished && s.pods_held == 0 && s.pods.empty()) {
      states_.erase(id);
      cluster_.remove_workload(id);
    }
  }
}

void WorkloadController::add_stream(JobStream stream) {
  Stream s;
  s.gpu_resource = accelerator_of(stream.template_workload.pod.spec);
  s.reader = std::make_unique<JobTraceReader>(stream.trace);
  s.source = std::move(stream);
  s.next = s.reader->next();
  streams_.push_back(std::move(s));
  const Stream& added = streams_.back();
  if (added.next)
    sim_.schedule_at(std::max(added.next->submit, sim_.now()), Phase::Workload, *this,
                     tag(Action::Arrive, static_cast<std::uint32_t>(streams_.size() - 1)));
}

void WorkloadController::on_event(SimTime, std::uint64_t t) {
  const auto tag = EventTag<Action>::unpack(t);
  const std::uint32_t index = tag.subject;
  switch (tag.kind) {
    case Action::Create:
      create(index);
      break;
    case Action::Complete:
      complete(index);
      break;
    case Action::Arrive:
      arrive(index);
      break;
    case Action::CreatePod: {
      auto it = states_.find(index);
      if (it == states_.end()) break;
      --it->second.creating;
      create_pod(it->second);
      reconcile(it->second);  // the want may have changed while it waited
      break;
    }
    case Action::ReplicaSetBatchDone:
      batch_done(replica_sets_, index);
      break;
    case Action::JobBatchDone:
      batch_done(jobs_, index);
      break;
  }
}

void WorkloadController::create(std::uint32_t index) {
  State& s = state(index);
  bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::WorkloadCreated, .workload = s.id});
  if (s.def.kind == WorkloadKind::Deployment) s.template_hash = names_.suffix(10);
  s.templates.push_back(s.def.pod);
  s.created = true;
  reconcile(s);
}

// Brings the workload's active pods to what its controller wants.
void WorkloadController::reconcile(State& s) {
  if (s.reconciling) {
    s.again = true;
    return;
  }
  s.reconciling = true;
  do {
    s.again = false;
    reconcile_once(s);
  } while (s.again);
  s.reconciling = false;
}

bool WorkloadController::rolling_out(const State& s) const {
  return s.def.kind == WorkloadKind::Deployment &&
         (s.exiting_old > 0 ||
          std::any_of(s.pods.begin(), s.pods.end(), [&](PodId p) { return !current(s, p); }));
}

void WorkloadController::reconcile_once(State& s) {
  int want = 0;
  switch (s.def.kind) {
    case WorkloadKind::Deployment:
      want = s.def.replicas;
      break;
    case WorkloadKind::Job:
      want = std::min(s.def.parallelism, s.def.completions - s.succeeded);
      break;
    case WorkloadKind::Pod:
      want = s.succeeded == 0 ? 1 : 0;
      break;
    case WorkloadKind::DaemonSet:
      want = 0;
      break;  // modelled as per-node overhead
  }
  if (rolling_out(s)) {
    roll_out(s);
    return;
  }
  const auto have = static_cast<std::int64_t>(s.pods.size()) + s.creating;
  if (have < want) request_pods(s, want - have);
  if (s.def.kind == WorkloadKind::Deployment && static_cast<int>(s.pods.size()) > want)
    scale_down(s, s.pods.size() - static_cast<std::size_t>(want));
}

bool WorkloadController::current(const State& s, PodId pod) const {
  return cluster_.pod(pod).spec == &s.templates.back().spec;
}

WorkloadController::SyncPool* WorkloadController::pool_of(const State& s) {
  switch (s.def.kind) {
    case WorkloadKind::Deployment:
      return &replica_sets_;
    case WorkloadKind::Job:
      return &jobs_;
    default:
      return nullptr;
  }
}

void WorkloadController::request_pods(State& s, std::int64_t count) {
  if (count <= 0) return;
  SyncPool* pool = pool_of(s);
  if (pool == nullptr) {
    for (std::int64_t i = 0; i < count; ++i) create_pod(s);
    return;
  }
  s.creating += static_cast<std::int32_t>(count);
  s.backlog += static_cast<std::int32_t>(count);
  // A running sync leaves the rest to the next one (the key is requeued when it ends, as the
  // workqueue requeues a key added while it was processed).
  if (s.syncing || s.queued) return;
  s.queued = true;
  pool->queue.push_back(s.id);
  dispatch(*pool);
}

void WorkloadController::dispatch(SyncPool& pool) {
  if (pool.dispatching) return;  // the loop below, further up the stack, takes the rest
  pool.dispatching = true;
  while (pool.busy < kConcurrentSyncs && !pool.queue.empty()) {
    const WorkloadId id = pool.queue.front();
    pool.queue.pop_front();
    auto it = states_.find(id);
    if (it == states_.end()) continue;
    start_sync(pool, it->second);
  }
  pool.dispatching = false;
}

void WorkloadController::start_sync(SyncPool& pool, State& s) {
  s.queued = false;
  s.syncing = true;
  ++pool.busy;
  if (!s.reconciling) {
    // The sync reads the state as it is now: what it wants may have changed since it was queued.
    s.creating -= s.backlog;
    s.backlog = 0;
    reconcile(s);
  }
  s.sync_left = std::min(s.backlog, kBurstReplicas);
  s.backlog -= s.sync_left;
  s.batch = kSlowStartInitialBatchSize;
  run_batches(pool, s);
}

void WorkloadController::run_batches(SyncPool& pool, State& s) {
  const SimTime now = sim_.now();
  while (s.sync_left > 0) {
    // slowStartBatch: batchSize = min(remaining, initial), then min(2 * batchSize, remaining).
    const std::int32_t size = std::min(s.batch, s.sync_left);
    s.sync_left -= size;
    s.batch *= 2;
    SimTime last = now;
    for (std::int32_t i = 0; i < size; ++i) {
      const SimTime at = pool.api.reserve(now);
      if (at == now) {
        --s.creating;
        create_pod(s);
      } else {
        sim_.schedule_at(at, Phase::Workload, *this, tag(Action::CreatePod, s.id));
        last = at;
      }
    }
    if (last > now) {
      // wg.Wait(): the next batch starts when this one's last creation has completed.
      const Action done =
          &pool == &replica_sets_ ? Action::ReplicaSetBatchDone : Action::JobBatchDone;
      sim_.schedule_at(last, Phase::Workload, *this, tag(done, s.id));
      return;
    }
  }
  s.syncing = false;
  --pool.busy;
  if (s.backlog > 0) {
    s.queued = true;
    pool.queue.push_back(s.id);
  }
  dispatch(pool);
}

void WorkloadController::batch_done(SyncPool& pool, WorkloadId id) {
  auto it = states_.find(id);
  if (it == states_.end()) {
    --pool.busy;
    dispatch(pool);
    return;
  }
  run_batches(pool, it->second);
}

// One step of a rollout from the old pod templates to the current one.
void WorkloadController::roll_out(State& s) {
  const std::int64_t replicas = s.def.replicas;
  std::int64_t new_active = 0, new_ready = 0, old_active = 0, old_ready = 0;
  for (PodId p : s.pods) {
    const bool ready = cluster_.pod(p).ready;
    (current(s, p) ? new_active : old_active) += 1;
    (current(s, p) ? new_ready : old_ready) += ready ? 1 : 0;
  }
  const std::int64_t new_total = new_active + s.creating;
  if (s.def.strategy.recreate) {
    // Recreate: every old pod is deleted, and new ones come once the old have all gone.
    if (old_active > 0) scale_down(s, static_cast<std::size_t>(old_active), /*old_only=*/true);
    if (old_active == 0 && s.exiting_old == 0 && new_total < replicas)
      request_pods(s, replicas - new_total);
    return;
  }
  const auto [surge, unavailable] = resolve_fenceposts(s.def.strategy, replicas);
  std::int64_t total = new_total + old_active;
  // reconcileNewReplicaSet: new pods up to replicas, the total up to replicas + maxSurge.
  if (new_total < replicas) {
    const std::int64_t add = std::min(replicas + surge - total, replicas - new_total);
    if (add > 0) {
      request_pods(s, add);
      total += add;
    }
  }
  // reconcileOldReplicaSets: unhealthy old pods first, then Ready ones while replicas −
  // maxUnavailable stay available.
  const std::int64_t min_available = replicas - unavailable;
  const std::int64_t new_unavailable = (new_active + s.creating) - new_ready;
  std::int64_t max_scaled_down = total - min_available - new_unavailable;
  if (max_scaled_down <= 0 || old_active == 0) return;
  const std::int64_t unhealthy = std::min(old_active - old_ready, max_scaled_down);
  if (unhealthy > 0)
    scale_down(s, static_cast<std::size_t>(unhealthy), /*old_only=*/true, /*unready_only=*/true);
  const std::int64_t ready_down = std::min(old_ready, old_ready + new_ready - min_available);
  if (ready_down > 0) scale_down(s, static_cast<std::size_t>(ready_down), /*old_only=*/true);
  // The ReplicaSets' counts changed: the controller syncs again (room for new pods now).
  if (unhealthy > 0 || ready_down > 0) s.again = true;
}

void WorkloadController::update(WorkloadId deployment, const Workload& def) {
  State& s = state(deployment);
  FLEETSIM_ASSERT(s.def.kind == WorkloadKind::Deployment && def.kind == WorkloadKind::Deployment);
  const std::int32_t replicas = def.replicas_set ? def.replicas : s.def.replicas;
  const bool new_template = !s.created || !(s.templates.back().spec == def.pod.spec &&
                                            s.templates.back().labels == def.pod.labels &&
                                            s.templates.back().annotations == def.pod.annotations);
  if (replicas != s.def.replicas)
    bus_.emit(SimEvent{.time = sim_.now(),
                       .kind = EventKind::ReplicasChanged,
                       .workload = s.id,
                       .reason = ReplicasSource::Apply,
                       .from = s.def.replicas,
                       .to = replicas});
  const SimTime created_at = s.def.created_at;
  s.def = def;
  s.def.replicas = replicas;
  s.def.created_at = created_at;
  if (!s.created) return;
  if (new_template) {
    s.templates.push_back(def.pod);
    s.template_hash = names_.suffix(10);  // the new ReplicaSet's pod-template-hash
  }
  reconcile(s);
}

void WorkloadController::on_ready(PodId pod) {
  const Pod& p = cluster_.pod(pod);
  auto it = states_.find(p.workload);
  if (it != states_.end() && rolling_out(it->second)) reconcile(it->second);
}

void WorkloadController::on_exit(PodId pod) {
  const Pod* p = cluster_.find_pod(pod);
  if (p == nullptr) return;
  auto it = states_.find(p->workload);
  if (it == states_.end() || !rolling_out(it->second)) return;
  State& s = it->second;
  if (s.exiting_old > 0 && p->spec != &s.templates.back().spec) --s.exiting_old;
  reconcile(s);
}

void WorkloadController::scale(WorkloadId deployment, std::int32_t replicas,
                               ReplicasSource source) {
  State& s = state(deployment);
  FLEETSIM_ASSERT(s.def.kind == WorkloadKind::Deployment && replicas >= 0);
  if (s.def.replicas == replicas) return;
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::ReplicasChanged,
                     .workload = s.id,
                     .reason = source,
                     .from = s.def.replicas,
                     .to = replicas});
  s.def.replicas = replicas;
  if (s.created) reconcile(s);
}

void WorkloadController::scale_down(State& s, std::size_t count, bool old_only, bool unready_only) {
  std::vector<ScaleDownCandidate> candidates;
  candidates.reserve(s.pods.size());
  // The nodes of the workload's pods, sorted: a pod's colocated count is its node's run.
  std::vector<NodeId> nodes;
  nodes.reserve(s.pods.size());
  for (PodId id : s.pods) nodes.push_back(cluster_.pod(id).node);
  std::sort(nodes.begin(), nodes.end());
  for (PodId id : s.pods) {
    const Pod& p = cluster_.pod(id);
    if ((old_only && current(s, id)) || (unready_only && p.ready)) continue;
    std::int32_t colocated = 0;
    if (p.node != kNoNode) {
      const auto [first, last] = std::equal_range(nodes.begin(), nodes.end(), p.node);
      colocated = static_cast<std::int32_t>(last - first);
    }
    candidates.push_back({.id = id,
                          .assigned = p.node != kNoNode,
                          .running = p.started,
                          .ready = p.ready,
                          .ready_since = p.ready_at,
                          .created = p.created,
                          .colocated = colocated,
                          .uid = p.uid});
  }
  sort_for_scale_down(candidates, sim_.now());
  count = std::min(count, candidates.size());
  for (std::size_t i = 0; i < count; ++i) {
    const PodId id = candidates[i].id;
    forget(s, id);
    // The DELETE call takes a token of the ReplicaSet controller's bucket; fleetsim does not
    // delay it.
    replica_sets_.api.reserve(sim_.now());
    if (cluster_.pod(id).node == kNoNode) {
      cluster_.delete_pending(id);
      bus_.emit(SimEvent{.time = sim_.now(),
                         .kind = EventKind::PodDeleted,
                         .pod = id,
                         .workload = s.id,
                         .reason = PodDeletionReason::ScaleDown});
    } else {
      if (s.def.strategy.recreate && !current(s, id)) ++s.exiting_old;
      cluster_.pod_terminating(id, sim_.now());
      bus_.pod_terminating(id);
    }
  }
}

void WorkloadController::forget(State& s, PodId pod) {
  auto it = std::find(s.pods.begin(), s.pods.end(), pod);
  if (it != s.pods.end()) s.pods.erase(it);
}

std::optional<WorkloadId> WorkloadController::find_deployment(std::string_view namespace_name,
                                                              std::string_view name) const {
  for (const auto& [id, s] : states_)
    if (s.def.kind == WorkloadKind::Deployment && s.def.name == name &&
        s.def.namespace_name == namespace_name)
      return s.id;
  return std::nullopt;
}

void WorkloadController::create_pod(State& s) {
  Pod p;
  switch (s.def.kind) {
    case WorkloadKind::Deployment:
      p.name = fmt::format("{}-{}-{}", s.def.name, s.template_hash, names_.suffix(5));
      break;
    case WorkloadKind::Job:
      p.name = fmt::format("{}-{}", s.def.name, names_.suffix(5));
      break;
    default:
      p.name = s.def.name;
  }
  p.workload = s.id;
  const PodTemplate& tpl = s.templates.empty() ? s.def.pod : s.templates.back();
  p.spec = &tpl.spec;
  p.labels = &tpl.labels;
  p.namespace_name = s.def.namespace_name;
  p.uid = random_uuid(uids_);
  p.created = sim_.now();
  p.run_time = s.def.run_time;
  std::optional<PodCheckpoint> checkpoint;
  if (s.def.checkpointing.interval)
    checkpoint = PodCheckpoint{.interval = *s.def.checkpointing.interval};
  if (checkpoint && !s.saved.empty() && p.run_time) {
    // The replacement resumes from the furthest checkpoint, after reloading it (only a Job that
    // checkpoints has saved work).
    const auto furthest = std::max_element(s.saved.begin(), s.saved.end());
    checkpoint->resumed_from = *furthest;
    s.saved.erase(furthest);
    checkpoint->restart_overhead = s.def.checkpointing.restart_overhead;
    p.run_time = checkpoint->restart_overhead + (*p.run_time - checkpoint->resumed_from);
  }
  PodId id = cluster_.add_pod(std::move(p));
  if (checkpoint) checkpoints_.add(id, *checkpoint);
  s.pods.push_back(id);
  ++s.pods_held;
  bus_.emit(
      SimEvent{.time = sim_.now(), .kind = EventKind::PodCreated, .pod = id, .workload = s.id});
  bus_.pod_pending(id);
}

void WorkloadController::on_bound(PodId pod) {
  const Pod& p = cluster_.pod(pod);
  if (p.run_time)
    sim_.schedule_after(*p.run_time, Phase::PodLifecycle, *this, tag(Action::Complete, pod));
}

void WorkloadController::complete(PodId id) {
  const Pod* found = cluster_.find_pod(id);
  // Evicted before it finished, or preempted and running out its grace period (replaced already).
  if (found == nullptr || found->phase != PodPhase::Running || found->preempted) return;
  const Pod& p = *found;
  const NodeId node = p.node;
  cluster_.finish(id, PodPhase::Succeeded, sim_.now());
  State& s = state(p.workload);
  forget(s, id);
  ++s.succeeded;
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::PodCompleted,
                     .node = node,
                     .pod = id,
                     .workload = p.workload});
  checkpoints_.remove(id);
  if ((s.def.kind == WorkloadKind::Job && s.succeeded == s.def.completions) ||
      s.def.kind == WorkloadKind::Pod) {
    bus_.emit(
        SimEvent{.time = sim_.now(), .kind = EventKind::WorkloadCompleted, .workload = p.workload});
  }
  reconcile(s);
  bus_.capacity_changed();
}

void WorkloadController::on_evicted(PodId id) {
  const Pod& p = cluster_.pod(id);
  State& s = state(p.workload);
  if (p.terminating) return;  // already gone from its controller's count
  forget(s, id);
  // A bare Pod is gone for good; Deployments and Jobs replace theirs. A Job's replacement starts
  // over, or, when the Job checkpoints, resumes from the last checkpoint this pod saved.
  if (s.def.kind == WorkloadKind::Job) {
    const SimDuration saved = checkpoints_.saved_work(p, sim_.now());
    if (saved > SimDuration{0}) s.saved.push_back(saved);
  }
  checkpoints_.remove(id);
  if (s.def.kind == WorkloadKind::Pod) {
    s.succeeded = 1;
    return;
  }
  reconcile(s);
}

void WorkloadController::arrive(std::uint32_t index) {
  Stream& stream = streams_[index];
  const JobArrival arrival = *stream.next;
  Workload job = stream.source.template_workload;
  job.kind = WorkloadKind::Job;
  job.name = arrival.name;
  job.parallelism = 1;
  job.completions = 1;
  job.run_time = arrival.duration;
  job.created_at = arrival.submit;
  PodSpec& spec = job.pod.spec;
  spec.requests[resource::kCpu] = arrival.cpu_millis;
  spec.requests[resource::kMemory] = arrival.memory_bytes;
  spec.requests[stream.gpu_resource] = arrival.gpus;
  if (arrival.priority) spec.priority = *arrival.priority;
  add(job, sim_.now(), stream.source.template_workload.name);
  stream.next = stream.reader->next();
  if (stream.next)
    sim_.schedule_at(std::max(stream.next->submit, sim_.now()), Phase::Workload, *this,
                     tag(Action::Arrive, index));
}

}  // namespace fleetsim
