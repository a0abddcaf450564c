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
  rig.termination.delete_node(node, "underutilized", seconds(30));

  std::vector<RecordedEvent> after(
      rig.bus.events.begin() + static_cast<std::ptrdiff_t>(events_before), rig.bus.events.end());
  REQUIRE(after.size() == 3);
  CHECK(after[0].kind == EventKind::NodeDeleting);
  CHECK(after[0].reason == "underutilized");
  // Pods are evicted in bind order, each naming the node it left and why.
  for (std::size_t i = 1; i < 3; ++i) {
    CHECK(after[i].kind == EventKind::PodEvicted);
    CHECK(after[i].time == delete_at);
    CHECK(after[i].node == node);
    CHECK(after[i].reason == "underutilized");
  }
  CHECK(after[1].pod == first);
  CHECK(after[2].pod == second);
  CHECK(rig.bus.evicted == std::vector<PodId>{first, second});

  const Node& n = rig.cluster.node(node);
  CHECK(n.phase == NodePhase::Deleting);
  CHECK(n.deleting_at == delete_at);
  CHECK(n.termination_reason == "underutilized");
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

  // The instance stays (and is billed) for the 30 s drain.
  rig.sim.run_until(delete_at + seconds(30) - micros(1));
  CHECK(rig.bus.count(EventKind::NodeTerminated) == 0);
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 1);
  rig.sim.run_until(delete_at + seconds(30));
  REQUIRE(rig.bus.count(EventKind::NodeTerminated) == 1);
  const RecordedEvent terminated = rig.bus.of_kind(EventKind::NodeTerminated).front();
  CHECK(terminated.time == at(seconds(130)));
  CHECK(terminated.node == node);
  CHECK(terminated.reason == "underutilized");
  CHECK(n.phase == NodePhase::Terminated);
  CHECK(n.terminated_at == at(seconds(130)));
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 0);
}

TEST_CASE("deleting a node twice is harmless", "[kube]") {
  TerminationRig rig;
  NodeId node = rig.ready_node("m5.large");
  rig.termination.delete_node(node, "first", seconds(10));
  rig.termination.delete_node(node, "second", seconds(1));
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.count(EventKind::NodeDeleting) == 1);
  REQUIRE(rig.bus.count(EventKind::NodeTerminated) == 1);
  CHECK(rig.bus.of_kind(EventKind::NodeTerminated).front().reason == "first");
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{80});
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
}

TEST_CASE("a node deleted while launching never emits NodeLaunched", "[kube]") {
  TerminationRig rig;
  std::optional<NodeId> id = rig.launch({"m5.large"});
  REQUIRE(id.has_value());
  rig.sim.run_until(at(seconds(2)));
  rig.termination.delete_node(*id, "launch_timeout", SimDuration{0});
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
  rig.termination.delete_node(*id, "test", seconds(5));
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.kinds() ==
        std::vector<EventKind>{EventKind::NodeLaunched, EventKind::NodeRegistered,
                               EventKind::NodeDeleting, EventKind::NodeTerminated});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{55});
}
