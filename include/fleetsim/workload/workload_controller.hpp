// The workload controllers: Deployments keep replicas, Jobs run pods to completion, bare Pods
// run once, and job traces stream in new Jobs.
#pragma once

#include <deque>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/core/name_generator.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/workload/api_rate_limiter.hpp"
#include "fleetsim/workload/job_checkpoints.hpp"
#include "fleetsim/workload/job_trace.hpp"

namespace fleetsim {

// A job trace bound to the template that supplies everything the trace does not.
struct JobStream {
  std::filesystem::path trace;
  Workload template_workload;
};

// Pods are created and deleted as kube-controller-manager's controllers do it. Each controller
// has its own API client (ClientOrDie("replicaset-controller"), ClientOrDie("job-controller")),
// hence its own token bucket (--kube-api-qps, --kube-api-burst), which all its workers share.
// A Deployment's pods come from the ReplicaSet controller, a Job's from the Job controller; bare
// Pods are the user's own calls and wait for no token. Each controller syncs at most 5 objects
// at once (--concurrent-replicaset-syncs, --concurrent-job-syncs), taking them from a FIFO queue
// in the order they asked; a sync creates at most 500 pods (replica_set.go burstReplicas,
// job_controller.go MaxPodCreateDeletePerSync) in slow-start batches of 1, 2, 4, … (replica_set.go
// slowStartBatch): every creation of a batch reserves its token when the batch starts, a pod is
// created when its token comes (the API call's completion; no other latency), and the next batch
// starts when the batch's last pod is created. A sync that had more to create goes to the back of
// the queue and creates the rest in another sync, from the state as it is then.
class WorkloadController final : private EventHandler {
 public:
  WorkloadController(Simulation& sim, Cluster& cluster, ClusterBus& bus, ApiLimits api = {});

  // Creates the workload at `at` (now or later). Costs and events group it under `group`
  // (default: its own name); trace jobs are grouped under their template's name.
  WorkloadId add(const Workload& workload, SimTime at, std::string_view group = {});
  // Streams the trace: each row becomes a Job at its submit time.
  void add_stream(JobStream stream);

  void on_bound(PodId pod);
  void on_evicted(PodId pod);
  // A pod turned Ready, or a terminating pod has gone: a rollout may take its next step.
  void on_ready(PodId pod);
  void on_exit(PodId pod);

  // An autoscaler writes a Deployment's spec.replicas (the scale subresource). Scale-down deletes
  // pods in Kubernetes' order (scale_down_order.hpp); a bound pod goes through its grace period
  // (ClusterBus::pod_terminating) and counts as gone at once, as a ReplicaSet counts it.
  void scale(WorkloadId deployment, std::int32_t replicas, ReplicasSource source);
  // `kubectl apply` of a Deployment that exists: spec.replicas when the manifest gives it, the
  // strategy, and a changed pod template, which rolls out under the strategy as the Deployment
  // controller does (rolling.go: new pods up to replicas + maxSurge, old ones down while
  // replicas − maxUnavailable stay Ready; Recreate: old pods gone first).
  void update(WorkloadId deployment, const Workload& def);

  // The first Deployment `name` in `namespace_name`.
  std::optional<WorkloadId> find_deployment(std::string_view namespace_name,
                                            std::string_view name) const;
  std::int32_t replicas(WorkloadId deployment) const { return state(deployment).def.replicas; }
  // Pods the workload's controller counts: created, not terminating, not finished; by creation.
  const std::vector<PodId>& active_pods(WorkloadId workload) const { return state(workload).pods; }
  const Workload& definition(WorkloadId workload) const { return state(workload).def; }
  // The pod template new pods get (a rollout's current one); its address lasts the run.
  const PodTemplate& pod_template(WorkloadId workload) const;

  // The cluster released these pods (one entry per pod): a finished Job or Pod whose pods are all
  // released is forgotten, so memory stays flat however many jobs a trace brings.
  void forget_pods(std::span<const WorkloadId> released);

  // The checkpointing Jobs' pods that have not ended: where each resumed, what it saved.
  const JobCheckpoints& checkpoints() const { return checkpoints_; }

 private:
  struct State {
    Workload def;  // the current definition
    // Pod templates, the current one last: pods point into them, so a rollout's old pods keep
    // theirs (a list: addresses stay put).
    std::list<PodTemplate> templates;
    WorkloadId id = 0;
    std::vector<PodId> pods;  // active, by creation
    // Creations asked for and not yet made: the backlog waiting for a sync, the running sync's
    // creations not yet begun, and those waiting for their tokens.
    std::int32_t creating = 0;
    std::int32_t backlog = 0;      // waiting for a sync (part of creating)
    std::int32_t sync_left = 0;    // the running sync's creations in batches not yet begun
    std::int32_t batch = 0;        // the running sync's next batch size
    bool queued = false;           // in its controller's queue
    bool syncing = false;          // a worker of its controller runs its sync
    std::int32_t exiting_old = 0;  // Recreate: old pods still in their grace period
    // A pod's exit can call back into reconcile while it runs: the inner call only asks for
    // another round.
    bool reconciling = false;
    bool again = false;
    std::uint32_t pods_held = 0;  // created and not yet released by the cluster
    int succeeded = 0;
    bool created = false;       // its creation time has come
    std::string template_hash;  // Deployment pods: the ReplicaSet's pod-template-hash
    // A checkpointing Job: the work its evicted pods had saved, for replacements to resume from.
    std::vector<SimDuration> saved;
  };
  struct Stream {
    JobStream source;
    std::unique_ptr<JobTraceReader> reader;
    std::optional<JobArrival> next;
    ResourceIndex gpu_resource = resource::kNvidiaGpu;
  };
  // One controller of kube-controller-manager that creates pods: its API client's token bucket,
  // its workers and the queue of objects waiting for one.
  struct SyncPool {
    explicit SyncPool(ApiLimits api) : api(api) {}
    ApiRateLimiter api;
    std::int32_t busy = 0;         // workers running a sync
    std::deque<WorkloadId> queue;  // waiting for a worker, in the order they were queued
    bool dispatching = false;
  };
  enum class Action : std::uint8_t {
    Create = 1,
    Complete = 2,
    Arrive = 3,
    CreatePod = 4,
    ReplicaSetBatchDone = 5,
    JobBatchDone = 6
  };
  static std::uint64_t tag(Action a, std::uint32_t index) {
    return EventTag<Action>{a, index}.pack();
  }

  void on_event(SimTime now, std::uint64_t tag) override;
  State& state(WorkloadId id);
  const State& state(WorkloadId id) const;
  void create(std::uint32_t state);
  void create_pod(State& s);
  // Asks the workload's controller for `count` more pods: a sync creates them as its batches
  // and their API tokens come (a bare Pod's at once).
  void request_pods(State& s, std::int64_t count);
  SyncPool* pool_of(const State& s);
  // Hands queued objects to the pool's free workers.
  void dispatch(SyncPool& pool);
  void start_sync(SyncPool& pool, State& s);
  // Starts the running sync's batches until one must wait for its tokens, or ends the sync.
  void run_batches(SyncPool& pool, State& s);
  void batch_done(SyncPool& pool, WorkloadId id);
  void reconcile(State& s);
  void reconcile_once(State& s);
  bool rolling_out(const State& s) const;
  void roll_out(State& s);
  bool current(const State& s, PodId pod) const;
  // Deletes `count` of the pods (old ones only, when `old_only`) in ReplicaSet order.
  void scale_down(State& s, std::size_t count, bool old_only = false, bool unready_only = false);
  void forget(State& s, PodId pod);
  void complete(PodId pod);
  void arrive(std::uint32_t stream);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  NameGenerator names_;
  RngStream uids_;  // pods' metadata.uid
  SyncPool replica_sets_;
  SyncPool jobs_;
  JobCheckpoints checkpoints_;
  std::map<WorkloadId, State> states_;  // node-based: pods point at their workload's PodSpec
  std::vector<Stream> streams_;
};

}  // namespace fleetsim
