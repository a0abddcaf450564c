// The workload controllers: Deployments keep replicas, Jobs run pods to completion, bare Pods
// run once, and job traces stream in new Jobs.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/workload/job_trace.hpp"

namespace fleetsim {

// A job trace bound to the template that supplies everything the trace does not.
struct JobStream {
  std::filesystem::path trace;
  Workload template_workload;
};

class WorkloadController : private EventHandler {
 public:
  WorkloadController(Simulation& sim, Cluster& cluster, ClusterBus& bus);

  // Creates the workload at `at` (now or later). Costs and events group it under `group`
  // (default: its own name); trace jobs are grouped under their template's name.
  WorkloadId add(const Workload& workload, SimTime at, std::string_view group = {});
  // Streams the trace: each row becomes a Job at its submit time.
  void add_stream(JobStream stream);

  void on_bound(PodId pod);
  void on_evicted(PodId pod);

  // An autoscaler writes a Deployment's spec.replicas (the scale subresource). Scale-down deletes
  // pods in Kubernetes' order (scale_down_order.hpp); a bound pod goes through its grace period
  // (ClusterBus::pod_terminating) and counts as gone at once, as a ReplicaSet counts it.
  void scale(WorkloadId deployment, std::int32_t replicas, std::string_view source);

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

 private:
  struct State {
    Workload def;  // owns the PodSpec its pods point to
    WorkloadId id = 0;
    std::vector<PodId> pods;      // active, by creation
    std::uint32_t pods_held = 0;  // created and not yet released by the cluster
    int succeeded = 0;
    bool created = false;       // its creation time has come
    std::string template_hash;  // Deployment pods: the ReplicaSet's pod-template-hash
  };
  struct Stream {
    JobStream source;
    std::unique_ptr<JobTraceReader> reader;
    std::optional<JobArrival> next;
    ResourceIndex gpu_resource = resource::kNvidiaGpu;
  };
  enum class Action : std::uint8_t { Create = 1, Complete = 2, Arrive = 3 };
  static std::uint64_t tag(Action a, std::uint32_t index) {
    return EventTag<Action>{a, index}.pack();
  }

  void on_event(SimTime now, std::uint64_t tag) override;
  State& state(WorkloadId id);
  const State& state(WorkloadId id) const;
  void create(std::uint32_t state);
  void create_pod(State& s);
  void reconcile(State& s);
  void scale_down(State& s, std::size_t count);
  void forget(State& s, PodId pod);
  void complete(PodId pod);
  void arrive(std::uint32_t stream);
  std::string random_suffix(std::size_t length);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  RngStream names_;
  std::map<WorkloadId, State> states_;  // node-based: pods point at their workload's PodSpec
  std::vector<Stream> streams_;
};

}  // namespace fleetsim
