#include "fleetsim/kube/node_termination.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "unit/kube/termination_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

// node/termination/suite_test.go "should evict pods in order and wait until pods are fully
// deleted" and "should delete nodes", for a NodePool's node with the API's time at zero.
TEST_CASE(
    "deleting a node evicts its pods, clears nominations to it and terminates after the drain",
    "[kube]") {
  TerminationRig rig;
  NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(80)));
  PodId first = rig.bound_pod(node);
  PodId second = rig.bound_pod(node);
  PodId nominated =
      add_pending_pod(rig.cluster, rig.specs.add(pod_requests(100, 128)), rig.sim.now());
  rig.cluster.nominate(nominated, node);
  const int capacity_changes_before = rig.bus.capacity_changes;
  const std::size_t events_before = rig.bus.events.size();

  const SimTime delete_at = at(seconds(100));
  rig.sim.run_until(delete_at);
  rig.termination.delete_node(node, NodeDeletionReason::Underutilized);
  rig.sim.run_until(delete_at);  // the termination controller's first look, at once

  std::vector<RecordedEvent> after(
      rig.bus.events.begin() + static_cast<std::ptrdiff_t>(events_before), rig.bus.events.end());
  REQUIRE(after.size() == 3);
  CHECK(after[0].kind == EventKind::NodeDeleting);
  CHECK(after[0].reason == EventReason{NodeDeletionReason::Underutilized});
  // Pods are evicted in bind order, each naming the node it left and why.
  for (std::size_t i = 1; i < 3; ++i) {
    CHECK(after[i].kind == EventKind::PodEvicted);
    CHECK(after[i].time == delete_at);
    CHECK(after[i].node == node);
    CHECK(after[i].reason == EventReason{NodeDeletionReason::Underutilized});
  }
  CHECK(after[1].pod == first);
  CHECK(after[2].pod == second);
  CHECK(rig.bus.evicted == std::vector<PodId>{first, second});

  const Node& n = rig.cluster.node(node);
  CHECK(n.phase == NodePhase::Deleting);
  CHECK(n.deleting_at == delete_at);
  CHECK(n.termination_reason == NodeDeletionReason::Underutilized);
  CHECK(n.pods.empty());
  CHECK(n.requested.is_zero());
  CHECK(n.last_pod_event == delete_at);  // the first eviction; the second is within 10 s of it
  for (PodId p : {first, second}) {
    CHECK(rig.cluster.pod(p).phase == PodPhase::Deleted);
    CHECK(rig.cluster.pod(p).node == kNoNode);
  }
  CHECK(rig.cluster.pod(nominated).nominated == kNoNode);
  CHECK(rig.cluster.pod(nominated).phase == PodPhase::Pending);
  CHECK(rig.bus.capacity_changes == capacity_changes_before + 1);

  // The pods' objects are deleted when their 30 s grace periods end (130 s); the poll then finds
  // the node drained, cloudProvider.Delete marks the instance terminating, and the next poll,
  // 5 s later, finds it gone. The instance is billed until then.
  rig.sim.run_until(at(seconds(130)) - micros(1));
  CHECK_FALSE(n.instance_terminating);
  rig.sim.run_until(at(seconds(130)));
  CHECK(n.instance_terminating);
  rig.sim.run_until(at(seconds(135)) - micros(1));
  CHECK(rig.bus.count(EventKind::NodeTerminated) == 0);
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 1);
  rig.sim.run_until(at(seconds(135)));
  REQUIRE(rig.bus.count(EventKind::NodeTerminated) == 1);
  const RecordedEvent terminated = rig.bus.of_kind(EventKind::NodeTerminated).front();
  CHECK(terminated.time == at(seconds(135)));
  CHECK(terminated.node == node);
  CHECK(terminated.reason == EventReason{NodeDeletionReason::Underutilized});
  CHECK(n.phase == NodePhase::Terminated);
  CHECK(n.terminated_at == at(seconds(135)));
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 0);
}

// node/termination/suite_test.go "should not finish draining until minDrainTime has passed":
// an empty node is Drained 5 s after its drain began, not before.
TEST_CASE("an empty node is drained only once MinDrainTime has passed", "[kube]") {
  TerminationRig rig;
  const NodeId node = rig.ready_node("m5.large");
  rig.sim.run_until(at(seconds(100)));
  rig.termination.delete_node(node, NodeDeletionReason::Empty);
  rig.sim.run_until(at(seconds(105)) - micros(1));
  CHECK_FALSE(rig.cluster.node(node).instance_terminating);
  rig.sim.run_until(at(seconds(105)));
  CHECK(rig.cluster.node(node).instance_terminating);
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{110});
}

TEST_CASE("MinDrainTime 0 (Karpenter before v1.10) drains an empty node at once", "[kube]") {
  TerminationRig rig;
  PodDisruptionBudgets none{rig.cluster, {}};
  NodeTermination old{rig.sim, rig.cluster,
                      rig.bus, rig.cloud,
                      none,    TerminationSettings{.min_drain_time = SimDuration{0}}};
  const NodeId node = rig.ready_node("m5.large");
  rig.sim.run_until(at(seconds(100)));
  old.delete_node(node, NodeDeletionReason::Empty);
  rig.sim.run_until(at(seconds(100)));
  CHECK(rig.cluster.node(node).instance_terminating);
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{105});
}

TEST_CASE("a node group's node has no MinDrainTime nor polls: it goes when its pods have",
          "[kube]") {
  TerminationRig rig;
  rig.owner = NodeGroupOwner{.name = "ng"};
  const NodeId node = *rig.launch({"m5.xlarge"});
  const NodeId empty = *rig.launch({"m5.large"});
  rig.sim.run_until(at(seconds(100)));  // both Ready at 70 s
  rig.bound_pod(node);
  rig.termination.delete_node(node, NodeDeletionReason::ScaleDown);
  rig.termination.delete_node(empty, NodeDeletionReason::ScaleDownEmpty);
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.seconds_of(EventKind::PodEvicted) == std::vector<double>{100});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{100, 130});
  CHECK_FALSE(rig.cluster.node(node).instance_terminating);
}

TEST_CASE("the API's time delays each step of the termination", "[kube]") {
  TerminationRig rig;
  PodDisruptionBudgets none{rig.cluster, {}};
  // Every call takes exactly 300 ms (p99 = median: no spread).
  NodeTermination slow{
      rig.sim, rig.cluster,
      rig.bus, rig.cloud,
      none,    TerminationSettings{.api_latency = {.median = millis(300), .p99 = millis(300)}}};
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  rig.bound_pod(node, seconds(10));
  slow.delete_node(node, NodeDeletionReason::Drifted);
  rig.sim.run_until(at(minutes(5)));
  // NodeClaim and Node deletions (0.6 s), the Eviction (0.3 s): evicted at 100.9 s. Its object
  // goes at 100.9 + 10 + 0.3 = 111.2 s; the drain began at 100.6 s and is polled each second
  // from there: Drained at 111.6 s, the instance gone 5 s later.
  CHECK(rig.bus.seconds_of(EventKind::PodEvicted) == std::vector<double>{100.9});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{116.6});
}

TEST_CASE("deleting a node twice is harmless", "[kube]") {
  TerminationRig rig;
  NodeId node = rig.ready_node("m5.large");
  rig.termination.delete_node(node, NodeDeletionReason::Expired);
  rig.termination.delete_node(node, NodeDeletionReason::Drifted);
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.count(EventKind::NodeDeleting) == 1);
  REQUIRE(rig.bus.count(EventKind::NodeTerminated) == 1);
  CHECK(rig.bus.of_kind(EventKind::NodeTerminated).front().reason ==
        EventReason{NodeDeletionReason::Expired});
  // No pods: Drained after MinDrainTime (75 s), gone at the next poll.
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{80});
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
}

TEST_CASE("a node deleted while launching never emits NodeLaunched", "[kube]") {
  TerminationRig rig;
  std::optional<NodeId> id = rig.launch({"m5.large"});
  REQUIRE(id.has_value());
  rig.sim.run_until(at(seconds(2)));
  rig.termination.delete_node(*id, NodeDeletionReason::ScaleUpTimedOut);
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.kinds() ==
        std::vector<EventKind>{EventKind::NodeDeleting, EventKind::NodeTerminated});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{2});
  CHECK(rig.cluster.node(*id).phase == NodePhase::Terminated);
  CHECK_FALSE(rig.cluster.node(*id).initialized);
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
  CHECK(rig.bus.capacity_changes == 1);  // the delete only; it never became Ready
}

TEST_CASE("a node deleted after registration never becomes Ready", "[kube]") {
  TerminationRig rig;
  std::optional<NodeId> id = rig.launch({"m5.large"});
  REQUIRE(id.has_value());
  rig.sim.run_until(at(seconds(50)));  // registered at 45 s, Ready would be at 70 s
  rig.termination.delete_node(*id, NodeDeletionReason::Expired);
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.kinds() ==
        std::vector<EventKind>{EventKind::NodeLaunched, EventKind::NodeRegistered,
                               EventKind::NodeDeleting, EventKind::NodeTerminated});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{50});
}

namespace {

// The termination rig with PDBs over every pod of namespace default (an empty selector).
struct PdbTerminationRig : TerminationRig {
  explicit PdbTerminationRig(std::int64_t min_available)
      : budgets(cluster, {PodDisruptionBudgetSpec{.name = "all",
                                                  .min_available = IntOrPercent{min_available},
                                                  .selector = LabelSelector{}}}) {}
  PodId ready_pod(NodeId node, SimDuration grace = seconds(30)) {
    const PodId id = bound_pod(node, grace);
    cluster.pod_ready(id, sim.now());
    return id;
  }
  std::vector<double> evictions() const { return bus.seconds_of(EventKind::PodEvicted); }

  PodDisruptionBudgets budgets;
  NodeTermination drain{sim, cluster, bus, cloud, budgets};
};

}  // namespace

TEST_CASE(
    "a PDB holds the drain: a refused eviction is retried with back-off until the "
    "budget allows it",
    "[kube][pdb]") {
  PdbTerminationRig rig(1);
  const NodeId node = rig.ready_node("m5.xlarge");
  const NodeId other = rig.ready_node("m5.large");
  rig.sim.run_until(at(seconds(100)));
  rig.ready_pod(node);
  rig.ready_pod(node);
  rig.drain.delete_node(node, NodeDeletionReason::Underutilized);
  // The first goes at once; the second would leave no pod Ready (the API server checks each
  // Eviction as it arrives). Retries follow at 100, 200, 400 ms… after each refusal (100.1,
  // 100.3, 100.7, 101.5, 103.1, 106.3 s); the drain's one-second polls do not hurry them.
  rig.sim.run_until(at(seconds(105)));
  CHECK(rig.evictions() == std::vector<double>{100});
  rig.ready_pod(other);  // the controller's replacement is Ready at 105 s
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.evictions() == std::vector<double>{100, 106.3});
  // The last pod object goes when its 30 s grace period ends (136.3 s); the poll at 137 s finds
  // the node drained, and the instance is gone at the next, 5 s later.
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{142});
}

TEST_CASE(
    "terminationGracePeriod ends a blocked drain: pods are deleted at TGP minus their "
    "grace period, the instance goes at TGP",
    "[kube][pdb]") {
  PdbTerminationRig rig(1);
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  rig.ready_pod(node, seconds(30));
  rig.drain.delete_node(node, NodeDeletionReason::Expired,
                        {.termination_grace_period = seconds(60)});
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.evictions() == std::vector<double>{130});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{160});
}

TEST_CASE("a do-not-disrupt pod is left to finish, only terminationGracePeriod removes it",
          "[kube]") {
  TerminationRig rig;
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  PodSpec pinned;
  pinned.requests = pod_requests(100, 128);
  pinned.do_not_disrupt = kForever;
  const PodId id = add_pending_pod(rig.cluster, rig.specs.add(pinned), rig.sim.now());
  rig.cluster.bind(id, node, rig.sim.now());
  const bool with_tgp = GENERATE(false, true);
  DrainLimits limits;
  if (with_tgp) limits.termination_grace_period = seconds(120);
  rig.termination.delete_node(node, NodeDeletionReason::Expired, limits);
  rig.sim.run_until(at(hours(1)));
  if (with_tgp) {
    CHECK(rig.bus.seconds_of(EventKind::PodEvicted) == std::vector<double>{190});  // 220 − 30
    CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{220});
  } else {
    CHECK(rig.bus.count(EventKind::PodEvicted) == 0);
    CHECK(rig.cluster.node(node).phase == NodePhase::Deleting);
  }
}

TEST_CASE("a spot interruption's stop ends a blocked drain", "[kube][pdb]") {
  PdbTerminationRig rig(1);
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  rig.ready_pod(node);
  rig.drain.delete_node(node, NodeDeletionReason::SpotInterruption,
                        {.instance_stops = at(seconds(220))});
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.evictions() == std::vector<double>{220});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{220});
}

TEST_CASE("system-critical pods are drained after the others", "[kube]") {
  TerminationRig rig;
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  PodSpec critical;
  critical.requests = pod_requests(100, 128);
  critical.priority_class_name = "system-node-critical";
  const PodId agent = add_pending_pod(rig.cluster, rig.specs.add(critical), rig.sim.now());
  rig.cluster.bind(agent, node, rig.sim.now());
  const PodId app = rig.bound_pod(node);
  rig.termination.delete_node(node, NodeDeletionReason::Underutilized);
  rig.sim.run_until(at(minutes(5)));
  const std::vector<RecordedEvent> evicted = rig.bus.of_kind(EventKind::PodEvicted);
  REQUIRE(evicted.size() == 2);
  CHECK(evicted[0].pod == app);
  CHECK(evicted[0].time == at(seconds(100)));
  // node/termination/suite_test.go "should evict non-critical pods first": the critical pod
  // waits until the other pod's object is gone, at the end of its 30 s grace period.
  CHECK(evicted[1].pod == agent);
  CHECK(evicted[1].time == at(seconds(130)));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{165});
}

// karpenter state/cluster.go: an evicted pod is Terminating until its grace period ends; only
// its object's deletion (DeletePod) marks the cluster unconsolidated, not the eviction.
TEST_CASE("an evicted pod re-opens consolidation when its object goes, not at its eviction",
          "[kube]") {
  TerminationRig rig;
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  rig.bound_pod(node);  // the default 30 s grace period
  rig.sim.run_until(at(seconds(200)));
  const SimTime before = rig.cluster.consolidation_state(rig.sim.now());
  rig.termination.delete_node(node, NodeDeletionReason::Underutilized);
  rig.sim.run_until(at(seconds(230)) - micros(1));
  // The node's deletion marks it (its deletionTimestamp), the eviction does not.
  CHECK(rig.cluster.consolidation_state(rig.sim.now()) == at(seconds(200)));
  CHECK(before < at(seconds(200)));
  rig.sim.run_until(at(seconds(230)));
  CHECK(rig.cluster.consolidation_state(rig.sim.now()) == at(seconds(230)));
}

// karpenter node/termination/terminator: a pod its controller is already deleting (Terminating)
// is not evicted again; the drain waits for it to go, then MinDrainTime has long passed.
TEST_CASE("a draining node waits for a terminating pod instead of evicting it", "[kube]") {
  TerminationRig rig;
  const NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(100)));
  const PodId pod = rig.bound_pod(node);
  rig.cluster.pod_terminating(pod, rig.sim.now());  // its ReplicaSet scaled it away
  rig.termination.delete_node(node, NodeDeletionReason::Underutilized);
  rig.sim.run_until(at(seconds(120)));
  CHECK(rig.bus.evicted.empty());
  CHECK_FALSE(rig.cluster.node(node).instance_terminating);
  rig.cluster.finish(pod, PodPhase::Deleted, rig.sim.now());  // its grace ends: the kubelet
  rig.sim.run_until(at(seconds(121)));  // the next 1 s look finds the node Drained
  CHECK(rig.cluster.node(node).instance_terminating);
  CHECK(rig.bus.evicted.empty());
}
