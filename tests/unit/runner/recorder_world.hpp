// Test helper: a hand-built Cluster that a test drives event by event into a RunRecorder (and
// any other EventSink), doing to the cluster what the world would before each event (the event
// contract).
#pragma once

#include <cmath>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/runner/run_recorder.hpp"

namespace fleetsim::test {

inline constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

struct NodeSpec {
  std::string name = "node-a";
  std::string nodepool = "gpu";
  std::string instance_type = "g5.12xlarge";
  CapacityType capacity_type = CapacityType::OnDemand;
  std::string zone = "us-east-1a";
  double price = 1.0;
  double ebs_price = 0.0;
  std::int64_t gpus = 0;
  std::int64_t cpu_millis = 4000;
  std::int64_t memory = 16 * kGiB;
};

struct PodRequest {
  std::string name;
  WorkloadId workload = 0;
  std::int64_t gpus = 0;
  std::int64_t cpu_millis = 100;
  std::int64_t memory = kGiB;
  double created = 0;  // seconds
  std::int32_t priority = 0;
};

class RecorderWorld {
 public:
  explicit RecorderWorld(EventSink& sink) : sinks_{&sink} {}
  explicit RecorderWorld(std::vector<EventSink*> sinks) : sinks_(std::move(sinks)) {}

  Cluster cluster;

  WorkloadId workload(std::string name, WorkloadKind kind) {
    return cluster.add_workload(
        {.name = std::move(name), .kind = kind, .namespace_name = "default"});
  }

  NodeId node(const NodeSpec& s) {
    Node n;
    n.name = s.name;
    n.owner = NodePoolOwner{.pool = 0, .name = s.nodepool};
    n.instance_type = s.instance_type;
    n.capacity_type = s.capacity_type;
    n.zone = s.zone;
    n.price_per_hour = s.price;
    n.ebs_price_per_hour = s.ebs_price;
    n.allocatable[resource::kCpu] = s.cpu_millis;
    n.allocatable[resource::kMemory] = s.memory;
    n.allocatable[resource::kPods] = 110;
    n.allocatable[resource::kNvidiaGpu] = s.gpus;
    return cluster.add_node(std::move(n));
  }

  PodId pod(const PodRequest& r) {
    PodSpec& spec = specs_.emplace_back();
    spec.requests[resource::kCpu] = r.cpu_millis;
    spec.requests[resource::kMemory] = r.memory;
    spec.requests[resource::kPods] = 1;
    spec.requests[resource::kNvidiaGpu] = r.gpus;
    spec.priority = r.priority;
    Pod p;
    p.name = r.name;
    p.workload = r.workload;
    p.spec = &spec;
    p.created = at_s(r.created);
    return cluster.add_pod(std::move(p));
  }

  void launch(double t, NodeId id) {
    cluster.node_launched(id, at_s(t));
    emit({.time = at_s(t), .kind = EventKind::NodeLaunched, .node = id});
  }
  void ready(double t, NodeId id) {
    cluster.node_initialized(id, at_s(t));
    emit({.time = at_s(t), .kind = EventKind::NodeReady, .node = id});
  }
  void terminate(double t, NodeId id, NodeDeletionReason reason) {
    cluster.begin_node_deletion(id, at_s(t), at_s(t), reason);
    cluster.node_terminated(id, at_s(t));
    emit({.time = at_s(t), .kind = EventKind::NodeTerminated, .node = id, .reason = reason});
  }
  void create(double t, PodId id) {
    const Pod& p = cluster.pod(id);
    FLEETSIM_ASSERT(p.created == at_s(t));  // set by pod(): PodRequest::created
    emit({.time = at_s(t), .kind = EventKind::PodCreated, .pod = id, .workload = p.workload});
  }
  void nominate(double t, PodId id, NodeId node) {
    cluster.nominate(id, node);
    emit({.time = at_s(t), .kind = EventKind::PodNominated, .node = node, .pod = id});
  }
  void unschedulable(double t, PodId id, std::string_view reason) {
    cluster.set_pending_reason(id, std::string(reason));
    emit({.time = at_s(t), .kind = EventKind::PodUnschedulable, .pod = id, .message = reason});
  }
  void bind(double t, PodId id, NodeId node) {
    cluster.bind(id, node, at_s(t));
    emit({.time = at_s(t), .kind = EventKind::PodScheduled, .node = node, .pod = id});
  }
  void complete(double t, PodId id) {
    const NodeId node = cluster.pod(id).node;
    cluster.finish(id, PodPhase::Succeeded, at_s(t));
    emit({.time = at_s(t), .kind = EventKind::PodCompleted, .node = node, .pod = id});
  }
  void evict(double t, PodId id, NodeDeletionReason reason) {
    const NodeId node = cluster.pod(id).node;
    cluster.finish(id, PodPhase::Deleted, at_s(t));
    emit({.time = at_s(t),
          .kind = EventKind::PodEvicted,
          .node = node,
          .pod = id,
          .reason = reason});
  }

  // kube-scheduler preempts a bound pod for `preemptor`: it stays on its node, terminating,
  // until leave().
  void preempt(double t, PodId id, std::string_view preemptor) {
    const Pod& p = cluster.pod(id);
    emit({.time = at_s(t),
          .kind = EventKind::PodPreempted,
          .node = p.node,
          .pod = id,
          .workload = p.workload,
          .message = preemptor});
    cluster.pod_preempted(id, at_s(t));
  }
  // A terminating pod's grace period ended: it leaves its node (the kubelet's PodDeleted).
  void leave(double t, PodId id) {
    const Pod& p = cluster.pod(id);
    const NodeId node = p.node;
    const PodDeletionReason reason =
        p.preempted ? PodDeletionReason::Preempted : PodDeletionReason::ScaleDown;
    cluster.finish(id, PodPhase::Deleted, at_s(t));
    emit({.time = at_s(t),
          .kind = EventKind::PodDeleted,
          .node = node,
          .pod = id,
          .workload = p.workload,
          .reason = reason});
  }

  // An event the helpers above do not cover, as is.
  void emit(const SimEvent& e) {
    for (EventSink* sink : sinks_) sink->on_event(e, cluster);
  }
  void interval(SimTime now) {
    for (EventSink* sink : sinks_) sink->on_interval(now, cluster);
  }
  void end(SimTime end) {
    for (EventSink* sink : sinks_) sink->on_end(end, cluster);
  }

  static SimTime at_s(double t) { return at(from_seconds(t)); }

 private:
  std::vector<EventSink*> sinks_;
  std::deque<PodSpec> specs_;  // stable addresses: Pod::spec points here
};

// A figure as report.json shows it (six decimals), so checks can name exact amounts.
inline double rounded(double x) {
  const double r = std::round(x * 1e6) / 1e6;
  return r == 0.0 ? 0.0 : r;
}
inline std::map<std::string, double> rounded(const UsdByName& m) {
  std::map<std::string, double> out;
  for (const auto& [k, v] : m) out.emplace(k, rounded(v));
  return out;
}

// The prices a test set on its hand-built nodes (they have no cloud behind them).
class PricesOnNodes final : public NodePricing {
 public:
  double instance_per_hour(const Node& node) const override { return node.price_per_hour; }
  double volumes_per_hour(const Node& node) const override { return node.ebs_price_per_hour; }
  double fee_per_hour(const Node&) const override { return 0.0; }
  bool charges_fee() const override { return false; }
};
inline const PricesOnNodes kPricesOnNodes;

inline RunInfo run_info(std::vector<std::string> pools = {"gpu"}) {
  return {.scenario = "unit",
          .seed = 7,
          .start_unix_s = kDefaultStartUnixSeconds,
          .duration = hours(1),
          .report_interval = seconds(60),
          .nodepools = std::move(pools)};
}

}  // namespace fleetsim::test
