#include <catch2/catch.hpp>

#include <deque>
#include <optional>
#include <vector>

#include "fleetsim/cloudprovider/aws/sim_cloud.hpp"
#include "unit/k8s/cluster_harness.hpp"
#include "unit/scheduling/builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// NodeLatency{launch, registration, initialization}: Launched at 5 s, Registered at 5+40 = 45 s,
// Ready at 45+25 = 70 s after the launch call.
constexpr NodeLatency kLatency{seconds(5), seconds(40), seconds(25)};
constexpr SimTime kReadyAt = at(seconds(70));

struct Capacities {
  std::optional<std::int64_t> large{};   // m5.large offerings
  std::optional<std::int64_t> xlarge{};  // m5.xlarge offerings
};

// Two types in one zone, each with an on-demand and a spot offering.
Catalog cloud_catalog(const Capacities& caps) {
  InstanceType large = make_type({.name = "m5.large", .vcpu = 2, .memory_gib = 8, .max_pods = 29,
                                  .on_demand = 0.096, .spot = 0.04, .zones = {"us-east-1a"}});
  InstanceType xlarge = make_type({.name = "m5.xlarge", .vcpu = 4, .memory_gib = 16, .max_pods = 58,
                                   .on_demand = 0.192, .spot = 0.08, .zones = {"us-east-1a"}});
  for (Offering& o : large.offerings) o.capacity = caps.large;
  for (Offering& o : xlarge.offerings) o.capacity = caps.xlarge;
  return Catalog({large, xlarge}, "test");
}

// Everything a SimCloud needs, built in dependency order and never moved (the context points
// into the catalog and pools).
struct CloudRig {
  explicit CloudRig(const Capacities& caps = {}, std::vector<PodSpec> daemonset_specs = {})
      : catalog(cloud_catalog(caps)),
        ds_specs(daemonset_specs.begin(), daemonset_specs.end()),
        daemonsets(make_daemonsets(ds_specs)),
        context(catalog, pools, daemonsets),
        cloud(sim, cluster, bus, context) {}
  CloudRig(const CloudRig&) = delete;
  CloudRig& operator=(const CloudRig&) = delete;

  static std::vector<SchedulingContext::DaemonSet> make_daemonsets(const std::deque<PodSpec>& specs) {
    std::vector<SchedulingContext::DaemonSet> out;
    for (const PodSpec& s : specs) out.push_back({.spec = &s});
    return out;
  }

  LaunchCandidate candidate(std::string_view type, CapacityType ct = CapacityType::OnDemand) const {
    OfferingPos pos = find_offering(catalog, type, "us-east-1a", ct);
    return LaunchCandidate{.type = pos.type, .offering = pos.offering,
                           .price = catalog.types()[pos.type].offerings[pos.offering].price_per_hour};
  }
  std::uint32_t global(std::string_view type, CapacityType ct = CapacityType::OnDemand) const {
    OfferingPos pos = find_offering(catalog, type, "us-east-1a", ct);
    return context.offering_index(pos.type, pos.offering);
  }
  bool usable(std::string_view type, CapacityType ct = CapacityType::OnDemand) {
    return cloud.usable_offerings()[global(type, ct)] != 0;
  }

  std::optional<NodeId> launch(std::vector<LaunchCandidate> candidates) {
    Node tpl;
    tpl.name = "default-" + std::to_string(cluster.nodes().size());
    tpl.pool = 0;
    tpl.nodepool = "default";
    return cloud.launch(std::move(tpl), candidates, kLatency);
  }
  // Launches one node and runs until it is Ready.
  NodeId ready_node(std::string_view type, CapacityType ct = CapacityType::OnDemand) {
    std::optional<NodeId> id = launch({candidate(type, ct)});
    FLEETSIM_ASSERT(id.has_value());
    sim.run_until(std::max(sim.now(), kReadyAt));
    return *id;
  }
  PodId bound_pod(NodeId node, SimDuration grace = seconds(30)) {
    PodSpec s;
    s.requests = pod_requests(100, 128);
    s.termination_grace = grace;
    PodId id = add_pending_pod(cluster, specs.add(std::move(s)), sim.now());
    cluster.bind(id, node, sim.now());
    return id;
  }

  Catalog catalog;
  std::vector<NodePool> pools{make_pool("default")};
  std::deque<PodSpec> ds_specs;
  std::vector<SchedulingContext::DaemonSet> daemonsets;
  SchedulingContext context;
  Simulation sim{7};
  Cluster cluster;
  RecordingBus bus;
  SimCloud cloud;
  SpecStore specs;
};

}  // namespace

TEST_CASE("launch takes the first candidate in the order given", "[cloud]") {
  CloudRig rig;
  std::optional<NodeId> id = rig.launch({rig.candidate("m5.large"), rig.candidate("m5.xlarge")});
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

TEST_CASE("launch skips a candidate that is cached unavailable", "[cloud]") {
  CloudRig rig;
  rig.cloud.mark_unavailable(rig.global("m5.large"));
  CHECK_FALSE(rig.usable("m5.large"));
  std::optional<NodeId> id = rig.launch({rig.candidate("m5.large"), rig.candidate("m5.xlarge")});
  REQUIRE(id.has_value());
  CHECK(rig.cluster.node(*id).instance_type == "m5.xlarge");
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
}

TEST_CASE("an offering at capacity is marked unavailable for three minutes and the next candidate launches",
          "[cloud]") {
  CloudRig rig({.large = 1});
  std::optional<NodeId> first = rig.launch({rig.candidate("m5.large")});
  REQUIRE(first.has_value());
  // The solver cannot see EC2's spare capacity, only the cache: the offering still looks usable
  // until a launch runs into the shortage.
  CHECK(rig.usable("m5.large"));

  const SimTime ice_at = at(seconds(10));
  rig.sim.run_until(ice_at);
  std::optional<NodeId> second = rig.launch({rig.candidate("m5.large"), rig.candidate("m5.xlarge")});
  REQUIRE(second.has_value());
  CHECK(rig.cluster.node(*second).instance_type == "m5.xlarge");
  CHECK(rig.cloud.running(rig.global("m5.large")) == 1);

  // The first instance goes away at 20 s: capacity is free again, but the ICE cache still says no.
  rig.sim.run_until(at(seconds(20)));
  rig.cloud.delete_node(*first, "test", SimDuration{0});
  rig.sim.run_until(at(seconds(20)));
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
  CHECK_FALSE(rig.usable("m5.large"));

  rig.sim.run_until(ice_at + minutes(2) + seconds(59));
  CHECK_FALSE(rig.usable("m5.large"));
  rig.sim.run_until(ice_at + kUnavailableOfferingTtl);
  CHECK(rig.usable("m5.large"));
  std::optional<NodeId> third = rig.launch({rig.candidate("m5.large"), rig.candidate("m5.xlarge")});
  REQUIRE(third.has_value());
  CHECK(rig.cluster.node(*third).instance_type == "m5.large");
}

TEST_CASE("launch returns nullopt when every candidate is out of capacity", "[cloud]") {
  CloudRig rig({.large = 0, .xlarge = 0});
  std::optional<NodeId> id = rig.launch({rig.candidate("m5.large"), rig.candidate("m5.xlarge")});
  CHECK_FALSE(id.has_value());
  CHECK(rig.cluster.nodes().empty());
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
  CHECK(rig.cloud.running(rig.global("m5.xlarge")) == 0);
  CHECK_FALSE(rig.usable("m5.large"));
  CHECK_FALSE(rig.usable("m5.xlarge"));
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.events.empty());
}

TEST_CASE("a launched node is billed from launch and becomes Ready after registration and initialization",
          "[cloud]") {
  PodSpec daemon;
  daemon.requests = pod_requests(200, 256);
  CloudRig rig({}, {daemon});
  std::optional<NodeId> id = rig.launch({rig.candidate("m5.xlarge")});
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

  CHECK(rig.bus.kinds() == std::vector<EventKind>{EventKind::NodeLaunched, EventKind::NodeRegistered, EventKind::NodeReady});
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

  const std::uint32_t type = *rig.catalog.index_of("m5.xlarge");
  CHECK(n.allocatable == rig.context.pools()[0].allocatable[type]);
  CHECK(n.allocatable == rig.catalog.types()[type].allocatable);  // no kubelet overrides
  CHECK(n.daemon_overhead == pod_requests(200, 256));             // the DaemonSet lands on every type
  CHECK(n.available() == n.allocatable - pod_requests(200, 256));
}

TEST_CASE("deleting a node evicts its pods, clears nominations to it and terminates after the drain", "[cloud]") {
  CloudRig rig;
  NodeId node = rig.ready_node("m5.xlarge");
  rig.sim.run_until(at(seconds(80)));
  PodId first = rig.bound_pod(node);
  PodId second = rig.bound_pod(node);
  PodId nominated = add_pending_pod(rig.cluster, rig.specs.add(pod_requests(100, 128)), rig.sim.now());
  rig.cluster.pod(nominated).nominated = node;
  const int capacity_changes_before = rig.bus.capacity_changes;
  const std::size_t events_before = rig.bus.events.size();

  const SimTime delete_at = at(seconds(100));
  rig.sim.run_until(delete_at);
  rig.cloud.delete_node(node, "underutilized", seconds(30));

  std::vector<RecordedEvent> after(rig.bus.events.begin() + static_cast<std::ptrdiff_t>(events_before), rig.bus.events.end());
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

TEST_CASE("deleting a node twice is harmless", "[cloud]") {
  CloudRig rig;
  NodeId node = rig.ready_node("m5.large");
  rig.cloud.delete_node(node, "first", seconds(10));
  rig.cloud.delete_node(node, "second", seconds(1));
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.count(EventKind::NodeDeleting) == 1);
  REQUIRE(rig.bus.count(EventKind::NodeTerminated) == 1);
  CHECK(rig.bus.of_kind(EventKind::NodeTerminated).front().reason == "first");
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{80});
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
}

TEST_CASE("a spot interruption drains for the longest pod grace period and blocks the offering for three minutes",
          "[cloud]") {
  CloudRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  PodId short_grace = rig.bound_pod(node, seconds(45));
  PodId long_grace = rig.bound_pod(node, seconds(90));
  const std::size_t events_before = rig.bus.events.size();

  const SimTime notice_at = at(seconds(100));
  rig.sim.run_until(notice_at);
  rig.cloud.interrupt_spot(node);

  std::vector<RecordedEvent> after(rig.bus.events.begin() + static_cast<std::ptrdiff_t>(events_before), rig.bus.events.end());
  REQUIRE(after.size() == 4);
  CHECK(after[0].kind == EventKind::SpotInterruptionNotice);
  CHECK(after[0].node == node);
  CHECK(after[0].time == notice_at);
  // Karpenter deletes the NodeClaim at once: cordon, then evict every pod.
  CHECK(after[1].kind == EventKind::NodeDeleting);
  CHECK(after[1].reason == "spot_interruption");
  CHECK(after[2].kind == EventKind::PodEvicted);
  CHECK(after[2].pod == short_grace);
  CHECK(after[3].kind == EventKind::PodEvicted);
  CHECK(after[3].pod == long_grace);
  CHECK(after[3].reason == "spot_interruption");
  CHECK(rig.bus.evicted == std::vector<PodId>{short_grace, long_grace});
  CHECK_FALSE(rig.usable("m5.large", CapacityType::Spot));
  CHECK(rig.usable("m5.large", CapacityType::OnDemand));  // only the spot pool was interrupted

  // max(45 s, 90 s) = 90 s of drain, below the two-minute warning.
  rig.sim.run_until(notice_at + seconds(90) - micros(1));
  CHECK(rig.bus.count(EventKind::NodeTerminated) == 0);
  rig.sim.run_until(notice_at + seconds(90));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{190});
  CHECK(rig.cluster.node(node).termination_reason == "spot_interruption");

  rig.sim.run_until(notice_at + minutes(2) + seconds(59));
  CHECK_FALSE(rig.usable("m5.large", CapacityType::Spot));
  rig.sim.run_until(notice_at + kUnavailableOfferingTtl);
  CHECK(rig.usable("m5.large", CapacityType::Spot));
}

TEST_CASE("EC2 stops an interrupted spot node at the two-minute mark whatever the grace period", "[cloud]") {
  CloudRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  rig.bound_pod(node, minutes(10));
  rig.sim.run_until(at(seconds(100)));
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(at(minutes(10)));
  // min(10 min grace, 2 min warning) after the notice at 100 s.
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{220});
}

TEST_CASE("an interrupted spot node without pods terminates at the notice", "[cloud]") {
  CloudRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  rig.sim.run_until(at(seconds(100)));
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(at(seconds(100)));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{100});
}

TEST_CASE("a spot interruption notice for an on-demand node is ignored", "[cloud]") {
  CloudRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::OnDemand);
  PodId pod = rig.bound_pod(node);
  const std::size_t events_before = rig.bus.events.size();
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.events.size() == events_before);
  CHECK(rig.cluster.node(node).phase == NodePhase::Initialized);
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Running);
  CHECK(rig.usable("m5.large", CapacityType::OnDemand));
}

TEST_CASE("a node deleted while launching never emits NodeLaunched", "[cloud]") {
  CloudRig rig;
  std::optional<NodeId> id = rig.launch({rig.candidate("m5.large")});
  REQUIRE(id.has_value());
  rig.sim.run_until(at(seconds(2)));
  rig.cloud.delete_node(*id, "launch_timeout", SimDuration{0});
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.kinds() == std::vector<EventKind>{EventKind::NodeDeleting, EventKind::NodeTerminated});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{2});
  CHECK(rig.cluster.node(*id).phase == NodePhase::Terminated);
  CHECK_FALSE(rig.cluster.node(*id).initialized);
  CHECK(rig.cloud.running(rig.global("m5.large")) == 0);
  CHECK(rig.bus.capacity_changes == 1);  // the delete only; it never became Ready
}

TEST_CASE("a node deleted after registration never becomes Ready", "[cloud]") {
  CloudRig rig;
  std::optional<NodeId> id = rig.launch({rig.candidate("m5.large")});
  REQUIRE(id.has_value());
  rig.sim.run_until(at(seconds(50)));  // registered at 45 s, Ready would be at 70 s
  rig.cloud.delete_node(*id, "test", seconds(5));
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.kinds() == std::vector<EventKind>{EventKind::NodeLaunched, EventKind::NodeRegistered,
                                                  EventKind::NodeDeleting, EventKind::NodeTerminated});
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{55});
}
