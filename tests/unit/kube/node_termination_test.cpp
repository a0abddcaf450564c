#include "fleetsim/kube/node_termination.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "unit/kube/termination_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

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
  CHECK(n.last_pod_event == delete_at);
  for (PodId p : {first, second}) {
    CHECK(rig.cluster.pod(p).phase == PodPhase::Deleted);
    CHECK(rig.cluster.pod(p).node == kNoNode);
  }
  CHECK(rig.cluster.pod(nominated).nominated == kNoNode);
  CHECK(rig.cluster.pod(nominated).phase == PodPhase::Pending);
  CHECK(rig.bus.capacity_changes == capacity_changes_before + 1);

  // The instance stays (and is billed) until the pods' 30 s grace periods end.
  rig.sim.run_until(delete_at + seconds(30) - micros(1));
  CHECK(rig.bus.count(EventKind::NodeTerminated) == 0);
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 1);
  rig.sim.run_until(delete_at + seconds(30));
  REQUIRE(rig.bus.count(EventKind::NodeTerminated) == 1);
  const RecordedEvent terminated = rig.bus.of_kind(EventKind::NodeTerminated).front();
  CHECK(terminated.time == at(seconds(130)));
  CHECK(terminated.node == node);
  CHECK(terminated.reason == EventReason{NodeDeletionReason::Underutilized});
  CHECK(n.phase == NodePhase::Terminated);
  CHECK(n.terminated_at == at(seconds(130)));
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 0);
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
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{70});  // no pods
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
  // The first goes at once; the second would leave no pod Ready. Retries follow at 100, 200,
  // 400 ms… after each refusal (100.1, 100.3, 100.7, 101.5, 103.1, 106.3 s).
  rig.sim.run_until(at(seconds(105)));
  CHECK(rig.evictions() == std::vector<double>{100});
  rig.ready_pod(other);  // the controller's replacement is Ready at 105 s
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.evictions() == std::vector<double>{100, 106.3});
  // The instance goes when the last evicted pod's 30 s grace period ends.
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{136.3});
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
  CHECK(evicted[1].pod == agent);
  CHECK(evicted[1].time == at(millis(100'100)));
}
