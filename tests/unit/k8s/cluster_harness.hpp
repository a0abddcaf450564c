// Test harness for the controllers that share a Cluster: a ClusterBus that records what was
// emitted and forwards the bus calls to the components under test (as src/world/world.cpp does),
// plus small builders for nodes and pods placed straight into a Cluster.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/k8s/sim_event.hpp"

namespace fleetsim::test {

// One emitted event, with the message copied (SimEvent::message is valid during the call only).
struct RecordedEvent {
  SimTime time{};
  EventKind kind = EventKind::PodCreated;
  NodeId node = kNoNode;
  PodId pod = UINT32_MAX;
  WorkloadId workload = UINT32_MAX;
  EventReason reason;
  std::string message;
  std::int32_t from = 0;
  std::int32_t to = 0;
  std::string zone;                      // CapacityChanged
  std::optional<std::int64_t> capacity;  // CapacityChanged
};

// Records every emit and bus call; the `forward_*` hooks wire it to the components under test.
class RecordingBus : public ClusterBus {
 public:
  void emit(const SimEvent& e) override {
    events.push_back(RecordedEvent{.time = e.time,
                                   .kind = e.kind,
                                   .node = e.node,
                                   .pod = e.pod,
                                   .workload = e.workload,
                                   .reason = e.reason,
                                   .message = std::string(e.message),
                                   .from = e.from,
                                   .to = e.to,
                                   .zone = std::string(e.zone),
                                   .capacity = e.capacity});
  }
  void pod_pending(PodId pod) override {
    pending.push_back(pod);
    if (forward_pending) forward_pending(pod);
  }
  void pod_bound(PodId pod) override {
    bound.push_back(pod);
    if (forward_bound) forward_bound(pod);
  }
  void pod_evicted(PodId pod, NodeId) override {
    evicted.push_back(pod);
    if (forward_evicted) forward_evicted(pod);
  }
  void pod_terminating(PodId pod) override {
    terminating.push_back(pod);
    if (forward_terminating) forward_terminating(pod);
  }
  void pod_preempted(PodId pod) override {
    preempted.push_back(pod);
    if (forward_preempted) forward_preempted(pod);
  }
  void capacity_changed() override {
    ++capacity_changes;
    if (forward_capacity_changed) forward_capacity_changed();
  }

  std::vector<RecordedEvent> of_kind(EventKind kind) const {
    std::vector<RecordedEvent> out;
    for (const RecordedEvent& e : events)
      if (e.kind == kind) out.push_back(e);
    return out;
  }
  std::size_t count(EventKind kind) const { return of_kind(kind).size(); }
  std::vector<EventKind> kinds() const {
    std::vector<EventKind> out;
    for (const RecordedEvent& e : events) out.push_back(e.kind);
    return out;
  }
  // Times (in seconds) of the events of one kind, in emission order.
  std::vector<double> seconds_of(EventKind kind) const {
    std::vector<double> out;
    for (const RecordedEvent& e : events)
      if (e.kind == kind) out.push_back(to_seconds(e.time));
    return out;
  }

  std::vector<RecordedEvent> events;
  std::vector<PodId> pending;
  std::vector<PodId> bound;
  std::vector<PodId> evicted;
  std::vector<PodId> terminating;
  std::vector<PodId> preempted;
  int capacity_changes = 0;

  std::function<void(PodId)> forward_pending;
  std::function<void(PodId)> forward_bound;
  std::function<void(PodId)> forward_evicted;
  std::function<void(PodId)> forward_terminating;
  std::function<void(PodId)> forward_preempted;
  std::function<void()> forward_capacity_changed;
};

// Resources with cpu, memory and pods = 1 (what a PodSpec's effective requests look like).
inline Resources pod_requests(std::int64_t cpu_millis, std::int64_t memory_mib,
                              std::int64_t gpus = 0) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_mib << 20;
  r[resource::kPods] = 1;
  r[resource::kNvidiaGpu] = gpus;
  return r;
}

inline Resources node_allocatable(std::int64_t cpu_millis, std::int64_t memory_gib,
                                  std::int64_t pods = 110) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_gib << 30;
  r[resource::kPods] = pods;
  return r;
}

struct ReadyNodeArgs {
  std::string name = "node-a";
  Resources allocatable = node_allocatable(4000, 16);
  Resources daemon_overhead{};
  std::string zone = "us-east-1a";
  NodePhase phase = NodePhase::Initialized;
  std::vector<Taint> taints{};
  Labels extra_labels{};
};

// A node placed directly into the cluster (no cloud provider), already in `phase`.
inline NodeId add_node(Cluster& cluster, const ReadyNodeArgs& a) {
  Node n;
  n.name = a.name;
  n.owner = NodePoolOwner{.pool = 0, .name = "default"};
  n.instance_type = "m5.xlarge";
  n.zone = a.zone;
  n.phase = a.phase;
  n.initialized = a.phase == NodePhase::Initialized;
  n.allocatable = a.allocatable;
  n.daemon_overhead = a.daemon_overhead;
  n.taints = a.taints;
  Labels labels = a.extra_labels;
  labels[std::string(label::kZone)] = a.zone;
  labels[std::string(label::kInstanceType)] = n.instance_type;
  labels[std::string(label::kHostname)] = a.name;
  n.labels = Requirements::from_labels(labels);
  return cluster.add_node(std::move(n));
}

// Pod specs the pods of a test point to; a deque keeps their addresses stable.
class SpecStore {
 public:
  const PodSpec* add(PodSpec spec) {
    specs_.push_back(std::move(spec));
    return &specs_.back();
  }
  const PodSpec* add(const Resources& requests) {
    PodSpec s;
    s.requests = requests;
    return add(std::move(s));
  }

 private:
  std::deque<PodSpec> specs_;
};

inline const Labels& no_labels() {
  static const Labels empty;
  return empty;
}

// A pending pod placed directly into the cluster (no workload controller).
inline PodId add_pending_pod(Cluster& cluster, const PodSpec* spec, SimTime created,
                             std::string name = {}) {
  Pod p;
  p.name = name.empty() ? "pod-" + std::to_string(cluster.next_pod_id()) : std::move(name);
  p.spec = spec;
  p.labels = &no_labels();
  p.namespace_name = "default";
  p.uid = "uid-" + std::to_string(cluster.next_pod_id());
  p.created = created;
  return cluster.add_pod(std::move(p));
}

// Evicts a bound pod the way NodeTermination::delete_node does: end it, tell the bus.
inline void evict(Cluster& cluster, ClusterBus& bus, PodId pod, SimTime now) {
  const NodeId node = cluster.pod(pod).node;
  cluster.finish(pod, PodPhase::Deleted, now);
  bus.pod_evicted(pod, node);
}

}  // namespace fleetsim::test
