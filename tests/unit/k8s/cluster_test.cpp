#include "fleetsim/k8s/cluster.hpp"

#include <catch2/catch.hpp>

#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

TEST_CASE("nodes and pods get their index in the cluster as id", "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  CHECK(add_node(cluster, {.name = "a"}) == 0);
  CHECK(add_node(cluster, {.name = "b"}) == 1);
  CHECK(cluster.node(1).id == 1);
  const PodSpec* spec = specs.add(pod_requests(100, 128));
  CHECK(add_pending_pod(cluster, spec, kSimStart) == 0);
  CHECK(add_pending_pod(cluster, spec, kSimStart) == 1);
  CHECK(cluster.pod(1).id == 1);
}

TEST_CASE("binding a pod charges its requests to the node and records the pod event", "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  NodeId node = add_node(cluster, {.allocatable = node_allocatable(4000, 16)});
  PodId a = add_pending_pod(cluster, specs.add(pod_requests(1500, 2048)), kSimStart);
  PodId b = add_pending_pod(cluster, specs.add(pod_requests(500, 1024, 1)), kSimStart);
  cluster.nominate(a, node);
  cluster.set_pending_reason(a, "nodepool default: no room");

  cluster.bind(a, node, at(seconds(7)));
  const Pod& pa = cluster.pod(a);
  CHECK(pa.phase == PodPhase::Running);
  CHECK(pa.node == node);
  CHECK(pa.bound_at == at(seconds(7)));
  CHECK(pa.nominated == kNoNode);  // the nomination is used up
  CHECK(pa.pending_reason.empty());
  CHECK(cluster.node(node).requested == pod_requests(1500, 2048));
  CHECK(cluster.node(node).last_pod_event == at(seconds(7)));

  cluster.bind(b, node, at(seconds(8)));
  CHECK(cluster.node(node).pods == std::vector<PodId>{a, b});  // bind order
  CHECK(cluster.node(node).requested == pod_requests(1500, 2048) + pod_requests(500, 1024, 1));
  // Each pod also takes one of the node's pod slots: 110 − 2 remain.
  Resources left = node_allocatable(4000, 16) - pod_requests(2000, 3072, 1);
  left[resource::kPods] = 108;
  CHECK(cluster.node(node).available() == left);
  // Within 10 s of the last recorded pod event: Karpenter's podevents controller skips it.
  CHECK(cluster.node(node).last_pod_event == at(seconds(7)));
}

TEST_CASE("finishing a bound pod frees its requests and records the pod event", "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  NodeId node = add_node(cluster, {});
  PodId a = add_pending_pod(cluster, specs.add(pod_requests(1500, 2048)), kSimStart);
  PodId b = add_pending_pod(cluster, specs.add(pod_requests(500, 1024)), kSimStart);
  cluster.bind(a, node, at(seconds(1)));
  cluster.bind(b, node, at(seconds(2)));

  cluster.finish(a, PodPhase::Succeeded, at(seconds(11)));
  CHECK(cluster.pod(a).node == kNoNode);
  CHECK(cluster.pod(a).phase == PodPhase::Succeeded);
  CHECK(cluster.node(node).pods == std::vector<PodId>{b});
  CHECK(cluster.node(node).requested == pod_requests(500, 1024));
  CHECK(cluster.node(node).last_pod_event == at(seconds(11)));

  // A pod that is not bound anywhere changes no node.
  cluster.finish(a, PodPhase::Deleted, at(seconds(30)));
  CHECK(cluster.node(node).last_pod_event == at(seconds(11)));
  CHECK(cluster.node(node).requested == pod_requests(500, 1024));
}

// nodeclaim/podevents/suite_test.go "should only set the nodeclaim lastPodEvent once within
// the dedupe timeframe": a pod event within 10 s of the last recorded one changes nothing.
TEST_CASE("pod events within 10 s of the last recorded one are not recorded", "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  NodeId node = add_node(cluster, {});
  cluster.node_initialized(node, at(seconds(3)));
  const PodSpec* spec = specs.add(pod_requests(100, 128));
  PodId a = add_pending_pod(cluster, spec, kSimStart);
  PodId b = add_pending_pod(cluster, spec, kSimStart);
  PodId c = add_pending_pod(cluster, spec, kSimStart);
  // The first event is recorded though Initialized was 2 s before: LastPodEventTime was unset.
  cluster.bind(a, node, at(seconds(5)));
  CHECK(cluster.node(node).last_pod_event == at(seconds(5)));
  cluster.bind(b, node, at(seconds(10)));  // 5 s later: deduplicated
  CHECK(cluster.node(node).last_pod_event == at(seconds(5)));
  cluster.pod_terminating(a, at(seconds(15)));  // 10 s later: recorded
  CHECK(cluster.node(node).last_pod_event == at(seconds(15)));
  cluster.finish(a, PodPhase::Deleted, at(seconds(24)));
  CHECK(cluster.node(node).last_pod_event == at(seconds(15)));
  cluster.bind(c, node, at(seconds(25)));
  CHECK(cluster.node(node).last_pod_event == at(seconds(25)));
}

// nodeclaim/podevents/controller.go: DaemonSet pods are no pod events.
TEST_CASE("a DaemonSet's pod does not move the node's last pod event", "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  NodeId node = add_node(cluster, {});
  cluster.node_initialized(node, at(seconds(3)));
  const WorkloadId ds = cluster.add_workload(
      WorkloadRecord{.name = "agent", .kind = WorkloadKind::DaemonSet, .namespace_name = "kube"});
  Pod p;
  p.name = "agent-1";
  p.spec = specs.add(pod_requests(100, 128));
  p.labels = &no_labels();
  p.workload = ds;
  const PodId id = cluster.add_pod(std::move(p));
  cluster.bind(id, node, at(seconds(30)));
  CHECK(cluster.node(node).last_pod_event == at(seconds(3)));
  CHECK_FALSE(cluster.node(node).pod_event_recorded);
}

TEST_CASE("collect forgets ended pods nobody holds and keeps the held ones until released",
          "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  const NodeId node = add_node(cluster, {});
  const PodSpec* spec = specs.add(pod_requests(100, 128));
  const PodId done = add_pending_pod(cluster, spec, kSimStart);
  const PodId held = add_pending_pod(cluster, spec, kSimStart);
  const PodId pending = add_pending_pod(cluster, spec, kSimStart);
  for (PodId p : {done, held}) cluster.bind(p, node, at(seconds(1)));
  cluster.hold(held);
  cluster.finish(done, PodPhase::Succeeded, at(seconds(2)));
  cluster.finish(held, PodPhase::Deleted, at(seconds(2)));

  CHECK(cluster.collect() == std::vector<WorkloadId>{0});  // `done`'s workload, once
  CHECK(cluster.find_pod(done) == nullptr);
  CHECK(cluster.find_pod(held) != nullptr);
  CHECK(cluster.find_pod(pending) != nullptr);  // still waiting: never collected
  cluster.release(held);
  CHECK(cluster.collect().size() == 1);
  CHECK(cluster.find_pod(held) == nullptr);
  CHECK(cluster.pods().size() == 1);
  CHECK(cluster.next_pod_id() == 3);  // ids are never reused
}

// karpenter state/suite_test.go "should update the consolidated value when state timeout (5m)
// has passed and state hasn't changed", and MarkUnconsolidated's callers (state/cluster.go).
TEST_CASE("the consolidation state moves on binds and node changes and resets after 5 minutes",
          "[k8s]") {
  Cluster cluster;
  SpecStore specs;
  const NodeId node = add_node(cluster, {.name = "a"});
  const SimTime start = cluster.consolidation_state(at(seconds(10)));
  CHECK(cluster.consolidation_state(at(minutes(1))) == start);
  CHECK(cluster.consolidation_state(at(minutes(3))) == start);
  // Five minutes without a change: reading it resets it.
  CHECK(cluster.consolidation_state(at(minutes(5))) == at(minutes(5)));
  CHECK(cluster.consolidation_state(at(minutes(6))) == at(minutes(5)));

  // A pending pod and a terminating pod change nothing upstream counts; a bind does.
  const PodId pod = add_pending_pod(cluster, specs.add(pod_requests(100, 128)), at(minutes(6)));
  CHECK(cluster.consolidation_state(at(minutes(6))) == at(minutes(5)));
  cluster.bind(pod, node, at(minutes(7)));
  CHECK(cluster.consolidation_state(at(minutes(7))) == at(minutes(7)));
  cluster.pod_terminating(pod, at(minutes(8)));
  CHECK(cluster.consolidation_state(at(minutes(8))) == at(minutes(7)));
  // The pod object deleted, and a node's deletion starting, do.
  cluster.finish(pod, PodPhase::Deleted, at(minutes(9)));
  CHECK(cluster.consolidation_state(at(minutes(9))) == at(minutes(9)));
  cluster.begin_node_deletion(node, at(minutes(10)), at(minutes(11)), NodeDeletionReason::None);
  CHECK(cluster.consolidation_state(at(minutes(10))) == at(minutes(10)));
}

// karpenter state/suite_test.go "should update the consolidated value when state timeout (5m)
// has passed and state hasn't changed": the reset happens at the read past the 5 minutes, so a
// look that is no read (peek) must leave it for that read.
TEST_CASE("peeking at the consolidation state never resets it", "[k8s]") {
  Cluster cluster;
  add_node(cluster, {.name = "a"});  // the state: t = 0
  CHECK(cluster.peek_consolidation_state(at(seconds(10))) == at(seconds(0)));
  CHECK(cluster.peek_consolidation_state(at(seconds(299))) == at(seconds(0)));
  // Past the 5 minutes a peek cannot say what a read would: the read resets the state then.
  CHECK_FALSE(cluster.peek_consolidation_state(at(minutes(5))).has_value());
  CHECK_FALSE(cluster.peek_consolidation_state(at(minutes(7))).has_value());
  CHECK(cluster.consolidation_state(at(minutes(8))) == at(minutes(8)));
  CHECK(cluster.peek_consolidation_state(at(minutes(9))) == at(minutes(8)));
  cluster.mark_unconsolidated(at(minutes(10)));
  CHECK(cluster.peek_consolidation_state(at(minutes(10))) == at(minutes(10)));
}
