#include <catch2/catch.hpp>
#include <vector>

#include "unit/cloudprovider/cloud_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

TEST_CASE("launch takes the cheapest offering of the claim's types", "[cloudprovider]") {
  CloudRig rig;
  std::optional<NodeId> id = rig.launch({"m5.large", "m5.xlarge"});
  REQUIRE(id.has_value());
  const Node& n = rig.cluster.node(*id);
  CHECK(n.instance_type == "m5.large");
  CHECK(n.zone == "us-east-1a");
  CHECK(n.capacity_type == CapacityType::OnDemand);
  CHECK(n.price_per_hour == 0.096);
  CHECK(n.phase == NodePhase::Launching);
  CHECK(n.created == kSimStart);
  CHECK(rig.cloud.running(rig.global("m5.large")) == 1);
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 0);
  // The node carries its offering as single-valued labels.
  CHECK(n.labels.get(label::kInstanceType)->single_value() == "m5.large");
  CHECK(n.labels.get(label::kZone)->single_value() == "us-east-1a");
  CHECK(n.labels.get(label::kCapacityType)->single_value() == "on-demand");
  // Nothing is emitted until the instance actually runs.
  CHECK(rig.bus.events.empty());
}

TEST_CASE("launch skips a candidate that is cached unavailable", "[cloudprovider]") {
  CloudRig rig;
  rig.cloud.mark_unavailable(rig.global("m5.large"));
  CHECK_FALSE(rig.usable("m5.large"));
  std::optional<NodeId> id = rig.launch({"m5.large", "m5.xlarge"});
  REQUIRE(id.has_value());
  CHECK(rig.cluster.node(*id).instance_type == "m5.xlarge");
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
}

TEST_CASE(
    "an offering at capacity is marked unavailable for three minutes and the next candidate "
    "launches",
    "[cloudprovider]") {
  CloudRig rig({.large = 1});
  std::optional<NodeId> first = rig.launch({"m5.large"});
  REQUIRE(first.has_value());
  // The solver cannot see EC2's spare capacity, only the cache: the offering still looks usable
  // until a launch runs into the shortage.
  CHECK(rig.usable("m5.large"));

  const SimTime ice_at = at(seconds(10));
  rig.sim.run_until(ice_at);
  std::optional<NodeId> second = rig.launch({"m5.large", "m5.xlarge"});
  REQUIRE(second.has_value());
  CHECK(rig.cluster.node(*second).instance_type == "m5.xlarge");
  CHECK(rig.cloud.running(rig.global("m5.large")) == 1);

  // The first instance goes away at 20 s: capacity is free again, but the ICE cache still says no.
  rig.sim.run_until(at(seconds(20)));
  rig.cloud.terminate(*first, rig.sim.now());
  rig.sim.run_until(at(seconds(20)));
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
  CHECK_FALSE(rig.usable("m5.large"));

  rig.sim.run_until(ice_at + minutes(2) + seconds(59));
  CHECK_FALSE(rig.usable("m5.large"));
  rig.sim.run_until(ice_at + kUnavailableOfferingTtl);
  CHECK(rig.usable("m5.large"));
  std::optional<NodeId> third = rig.launch({"m5.large", "m5.xlarge"});
  REQUIRE(third.has_value());
  CHECK(rig.cluster.node(*third).instance_type == "m5.large");
}

TEST_CASE("launch returns nullopt when every candidate is out of capacity", "[cloudprovider]") {
  CloudRig rig({.large = 0, .xlarge = 0});
  std::optional<NodeId> id = rig.launch({"m5.large", "m5.xlarge"});
  CHECK_FALSE(id.has_value());
  CHECK(rig.cluster.nodes().empty());
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 0);
  CHECK_FALSE(rig.usable("m5.large"));
  CHECK_FALSE(rig.usable("m5.xlarge"));
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.events.empty());
}

TEST_CASE(
    "a launched node is billed from launch and becomes Ready after registration and initialization",
    "[cloudprovider]") {
  CloudRig rig;
  std::optional<NodeId> id =
      rig.launch({"m5.xlarge"}, CapacityType::OnDemand, pod_requests(200, 256));
  REQUIRE(id.has_value());
  const Node& n = rig.cluster.node(*id);

  rig.sim.run_until(at(seconds(4)));
  CHECK(n.phase == NodePhase::Launching);
  rig.sim.run_until(at(seconds(5)));
  CHECK(n.phase == NodePhase::Launched);
  rig.sim.run_until(at(seconds(45)));
  CHECK(n.phase == NodePhase::Registered);
  CHECK_FALSE(n.initialized);
  CHECK(rig.bus.capacity_changes == 0);
  rig.sim.run_until(at(minutes(5)));

  CHECK(rig.bus.kinds() == std::vector<EventKind>{EventKind::NodeLaunched,
                                                  EventKind::NodeRegistered, EventKind::NodeReady});
  CHECK(rig.bus.seconds_of(EventKind::NodeLaunched) == std::vector<double>{5});
  CHECK(rig.bus.seconds_of(EventKind::NodeRegistered) == std::vector<double>{45});
  CHECK(rig.bus.seconds_of(EventKind::NodeReady) == std::vector<double>{70});
  for (const RecordedEvent& e : rig.bus.events) CHECK(e.node == *id);

  CHECK(n.phase == NodePhase::Initialized);
  CHECK(n.initialized);
  CHECK(n.billed_from == at(seconds(5)));
  CHECK(n.initialized_at == kReadyAt);
  CHECK(n.last_pod_event == kReadyAt);  // consolidateAfter counts from initialization
  // Ready is new capacity for pending pods.
  CHECK(rig.bus.capacity_changes == 1);

  // The node is what the chosen candidate said it would be.
  const std::uint32_t type = *rig.catalog.index_of("m5.xlarge");
  CHECK(n.allocatable == rig.catalog.types()[type].allocatable);
  CHECK(n.daemon_overhead == pod_requests(200, 256));
  CHECK(n.available() == n.allocatable - pod_requests(200, 256));
}

namespace {

struct RecordingListener final : CloudNoticeListener {
  void on_cloud_notice(const CloudNotice& notice) override { notices.push_back(notice); }
  std::vector<CloudNotice> notices;
};

}  // namespace

TEST_CASE("a spot interruption is a notice now and tells the listener when the instance stops",
          "[cloudprovider]") {
  CloudRig rig;
  RecordingListener listener;
  rig.cloud.set_notice_listener(&listener);
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  rig.sim.run_until(at(seconds(100)));
  rig.cloud.interrupt_spot(node);
  CHECK(rig.bus.of_kind(EventKind::SpotInterruptionNotice).size() == 1);
  REQUIRE(listener.notices.size() == 1);
  CHECK(listener.notices[0].kind == CloudNoticeKind::SpotInterruption);
  CHECK(listener.notices[0].node == node);
  CHECK(listener.notices[0].terminates_at == at(seconds(220)));
  // What happens to the node is the listener's business (Karpenter deletes it).
  CHECK(rig.cluster.node(node).phase == NodePhase::Initialized);
}

TEST_CASE("prices are the catalog's, by global offering", "[cloudprovider]") {
  CloudRig rig;
  CHECK(rig.cloud.price(rig.global("m5.large")) == 0.096);
  CHECK(rig.cloud.price(rig.global("m5.xlarge", CapacityType::Spot)) == 0.08);
}

TEST_CASE("a spot interruption notice for an on-demand node is ignored", "[cloudprovider]") {
  CloudRig rig;
  RecordingListener listener;
  rig.cloud.set_notice_listener(&listener);
  NodeId node = rig.ready_node("m5.large", CapacityType::OnDemand);
  PodId pod = rig.bound_pod(node);
  const std::size_t events_before = rig.bus.events.size();
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.events.size() == events_before);
  CHECK(rig.cluster.node(node).phase == NodePhase::Initialized);
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Running);
  CHECK(rig.usable("m5.large", CapacityType::OnDemand));
  CHECK(listener.notices.empty());
}

TEST_CASE("each launch draws its node's start-up from the node-startup stream in launch order",
          "[cloudprovider]") {
  const NodeLatency median{.launch = seconds(5),
                           .registration = seconds(40),
                           .initialization = seconds(25),
                           .sigma = 0.3,
                           .launch_fixed = true};
  CloudRig rig({}, 21, median);
  std::optional<NodeId> first = rig.launch({"m5.large"});
  std::optional<NodeId> second = rig.launch({"m5.large"});
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  RngStream expected(21, "node-startup");
  const NodeLatency a = draw_node_latency(median, expected.normal());
  const NodeLatency b = draw_node_latency(median, expected.normal());
  CHECK(rig.cloud.node_latency(*first) == a);
  CHECK(rig.cloud.node_latency(*second) == b);
  CHECK(a.launch == seconds(5));
  CHECK(a.registration != b.registration);
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.cluster.node(*first).initialized_at ==
        at(a.launch + a.registration + a.initialization));
  CHECK(rig.cluster.node(*second).initialized_at ==
        at(b.launch + b.registration + b.initialization));
}

// What the scheduling simulation keeps its answers by (SchedulingSimulation::check_offerings):
// an unchanged revision must mean unchanged usable offerings and prices.
TEST_CASE("the offerings revision changes with every price change and usable offerings update",
          "[cloudprovider]") {
  CloudRig rig;
  rig.cloud.usable_offerings();
  const std::uint64_t first = rig.cloud.offerings_revision();
  CHECK(first != 0);             // tracked
  rig.cloud.usable_offerings();  // nothing changed: the same
  CHECK(rig.cloud.offerings_revision() == first);
  rig.cloud.mark_unavailable(rig.global("m5.large"));
  rig.cloud.usable_offerings();
  const std::uint64_t unavailable = rig.cloud.offerings_revision();
  CHECK(unavailable != first);
  rig.cloud.set_price(rig.global("m5.large"), 0.5);
  CHECK(rig.cloud.offering_prices()[rig.global("m5.large")] == 0.5);
  CHECK(rig.cloud.offerings_revision() != unavailable);
}
