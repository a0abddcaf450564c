// The workload controllers: Deployments keep replicas, Jobs run pods to completion, bare Pods
// run once, and job traces stream in new Jobs.
#pragma once

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

// Pods are created and deleted through the controller-manager's API client: each takes a token
// of its rate limit, and a creation waits for its token. (The ReplicaSet and Job controllers'
// slow-start batches of 1, 2, 4, … up to 500 per sync change nothing while no creation fails,
// which fleetsim does not model: the tokens alone set the pace.)
class WorkloadController : private EventHandler {
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
    std::vector<PodId> pods;       // active, by creation
    std::int32_t creating = 0;     // creations waiting for an API token
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
  enum class Action : std::uint8_t { Create = 1, Complete = 2, Arrive = 3, CreatePod = 4 };
  static std::uint64_t tag(Action a, std::uint32_t index) {
    return EventTag<Action>{a, index}.pack();
  }

  void on_event(SimTime now, std::uint64_t tag) override;
  State& state(WorkloadId id);
  const State& state(WorkloadId id) const;
  void create(std::uint32_t state);
  void create_pod(State& s);
  // Creates `count` pods as their API tokens come.
  void request_pods(State& s, std::int64_t count);
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
  ApiRateLimiter api_;
  JobCheckpoints checkpoints_;
  std::map<WorkloadId, State> states_;  // node-based: pods point at their workload's PodSpec
  std::vector<Stream> streams_;
};

}  // namespace fleetsim
