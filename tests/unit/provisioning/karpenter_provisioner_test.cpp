#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"

#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <type_traits>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "unit/k8s/cluster_harness.hpp"
#include "unit/provisioning/fake_cloud_provider.hpp"
#include "unit/scheduling/builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Launched 5 s after the launch call, Ready 70 s after it.
constexpr NodeLatency kLatency{seconds(5), seconds(40), seconds(25)};
// What a pool without an EC2NodeClass adds to a node: the AMI's default 20 GiB gp3 root volume.
const PoolLaunchInfo kRootVolume{.ebs_bytes = 20LL << 30, .ebs_price_per_hour = 20 * 0.08 / 730};

NodePool on_demand_pool(std::string name, std::vector<std::string> families = {"m5", "c5"}) {
  NodePool p = make_pool(std::move(name));
  p.requirements.add(std::string(label::kCapacityType), in({"on-demand"}));
  p.requirements.add(std::string(label::kInstanceFamily), in(std::move(families)));
  return p;
}

// One m5.large offering (us-east-1a, on-demand) that can run at most `capacity` instances
// (nullopt: unlimited).
Catalog scarce_catalog(std::optional<std::int64_t> capacity) {
  InstanceType t = make_type({.name = "m5.large",
                              .vcpu = 2,
                              .memory_gib = 8,
                              .max_pods = 29,
                              .on_demand = 0.096,
                              .zones = {"us-east-1a"}});
  for (Offering& o : t.offerings) o.capacity = capacity;
  return Catalog({t}, "test");
}

template <typename Cloud>
Cloud make_cloud(Simulation& sim, Cluster& cluster, ClusterBus& bus, const Catalog& catalog) {
  if constexpr (std::is_same_v<Cloud, Ec2Cloud>) {
    return Cloud(sim, cluster, bus, catalog,
                 std::vector<NodeLatency>(catalog.types().size(), kLatency));
  } else {
    return Cloud(sim, cluster, bus, catalog);
  }
}

// Simulation + Cluster + a cloud + KarpenterProvisioner over a recording bus; never moved (the
// controllers point into the catalog and into each other). The provisioner's own behaviour is
// tested against the fake cloud; its dealings with EC2's capacity against the EC2 model.
template <typename Cloud>
struct ProvisionerRig {
  ProvisionerRig(Catalog c, std::vector<NodePool> pools)
      : catalog(std::move(c)),
        cloud(make_cloud<Cloud>(sim, cluster, bus, catalog)),
        provisioner(KarpenterProvisioner::Inputs{
            .sim = sim,
            .cluster = cluster,
            .bus = bus,
            .cloud = cloud,
            .nodepool_inputs = {.catalog = catalog, .node_classes = {}, .daemonsets = {}},
            .nodepools = std::move(pools),
            .settings = {}}) {}
  ProvisionerRig(const ProvisionerRig&) = delete;
  ProvisionerRig& operator=(const ProvisionerRig&) = delete;

  // A pod that appears now and is handed to Karpenter (as kube-scheduler would on failing it).
  PodId new_pod(std::int64_t cpu_millis, std::int64_t memory_mib) {
    PodId id = add_pending_pod(cluster, specs.add(pod_requests(cpu_millis, memory_mib)), sim.now());
    provisioner.pod_unschedulable(id);
    return id;
  }
  void run_to(SimDuration t) { sim.run_until(at(t)); }
  void run_to_just_before(SimDuration t) { sim.run_until(at(t) - micros(1)); }

  Catalog catalog;
  Simulation sim{5};
  Cluster cluster;
  RecordingBus bus;
  Cloud cloud;
  KarpenterProvisioner provisioner;
  SpecStore specs;
};

using FakeRig = ProvisionerRig<FakeCloudProvider>;
using Ec2Rig = ProvisionerRig<Ec2Cloud>;

}  // namespace

TEST_CASE("a batch closes after one idle second", "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  rig.new_pod(500, 512);
  rig.run_to_just_before(seconds(1));
  CHECK(rig.provisioner.solves() == 0);
  rig.run_to(seconds(1));
  CHECK(rig.provisioner.solves() == 1);
  CHECK(rig.bus.seconds_of(EventKind::PodNominated) == std::vector<double>{1});
}

TEST_CASE("each new pod extends the batch by the idle second", "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  for (int k = 0; k < 3; ++k) {
    rig.run_to(millis(500 * k));
    rig.new_pod(100, 128);
  }
  // The last new pod came at 1.0 s: 1 s idle after it.
  rig.run_to_just_before(seconds(2));
  CHECK(rig.provisioner.solves() == 0);
  rig.run_to(seconds(2));
  CHECK(rig.provisioner.solves() == 1);
  CHECK(rig.bus.seconds_of(EventKind::PodNominated) == std::vector<double>{2, 2, 2});
}

TEST_CASE("a batch that keeps receiving new pods closes ten seconds after it opened",
          "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  // New pods at 0, 0.5, …, 9.5 s: the idle second never passes, the 10 s maximum does.
  for (int k = 0; k < 20; ++k) {
    rig.run_to(millis(500 * k));
    rig.new_pod(100, 128);
  }
  rig.run_to_just_before(seconds(10));
  CHECK(rig.provisioner.solves() == 0);
  rig.run_to(seconds(10));
  CHECK(rig.provisioner.solves() == 1);
  CHECK(rig.bus.count(EventKind::PodNominated) == 20);
  for (const Pod& p : rig.cluster.pods()) CHECK(p.nominated != kNoNode);
}

TEST_CASE("the same pod triggering again does not extend the batch", "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  PodId pod = rig.new_pod(500, 512);
  rig.run_to(millis(500));
  rig.provisioner.pod_unschedulable(pod);
  rig.run_to_just_before(seconds(1));
  CHECK(rig.provisioner.solves() == 0);
  rig.run_to(seconds(1));  // still the first trigger + 1 s
  CHECK(rig.provisioner.solves() == 1);
}

TEST_CASE(
    "after the solve a pod is nominated to a launched NodeClaim of the cheapest type that fits",
    "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  PodId pod = rig.new_pod(1500, 2048);
  rig.run_to(seconds(1));

  REQUIRE(rig.cluster.nodes().size() == 1);
  const Node& n = rig.cluster.node(0);
  // c5.large ($0.085) is the cheapest m5/c5 on-demand type with room for 1500m and 2 GiB.
  CHECK(n.instance_type == "c5.large");
  CHECK(n.capacity_type == CapacityType::OnDemand);
  CHECK(n.price_per_hour == 0.085);
  CHECK(n.zone == "us-east-1a");  // both zones cost the same; the first offering wins
  REQUIRE(n.nodepool() != nullptr);
  CHECK(n.nodepool()->pool == 0);
  CHECK(n.owner_name() == "default");
  CHECK(std::regex_match(n.name, std::regex("default-[bcdfghjklmnpqrstvwxz2456789]{5}")));
  CHECK(n.labels.get(label::kNodePool)->single_value() == "default");
  CHECK(n.ebs_bytes == kRootVolume.ebs_bytes);
  CHECK(n.ebs_price_per_hour == kRootVolume.ebs_price_per_hour);
  CHECK(n.phase == NodePhase::Launching);
  CHECK(rig.provisioner.launcher().claims().at(n.id).nominated_until ==
        at(seconds(1)) + seconds(20));  // max(2 × BATCH_MAX_DURATION 10 s, 10 s)

  REQUIRE(rig.bus.count(EventKind::PodNominated) == 1);
  const RecordedEvent e = rig.bus.of_kind(EventKind::PodNominated).front();
  CHECK(e.time == at(seconds(1)));
  CHECK(e.pod == pod);
  CHECK(e.node == n.id);
  CHECK(rig.cluster.pod(pod).nominated == n.id);
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Pending);  // binding is kube-scheduler's job

  // One launch, carrying the claim's types cheapest first.
  REQUIRE(rig.cloud.launch_calls.size() == 1);
  const FakeCloudProvider::LaunchCall& call = rig.cloud.launch_calls.front();
  CHECK(call.nodepool == "default");
  REQUIRE_FALSE(call.types.empty());
  CHECK(rig.catalog.types()[call.types.front().type].name == "c5.large");
  CHECK(call.node == n.id);
  // Nothing left waiting: no further batch.
  rig.run_to(minutes(2));
  CHECK(rig.provisioner.solves() == 1);
}

TEST_CASE(
    "a pod that fits nowhere is reported with a reason per NodePool and retried ten seconds later",
    "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("alpha"), on_demand_pool("beta")});
  PodId pod = rig.new_pod(100'000, 512);  // 100 CPUs: more than any type offers
  rig.run_to(seconds(1));

  CHECK(rig.cluster.nodes().empty());
  REQUIRE(rig.bus.count(EventKind::PodUnschedulable) == 1);
  const RecordedEvent e = rig.bus.of_kind(EventKind::PodUnschedulable).front();
  CHECK(e.time == at(seconds(1)));
  CHECK(e.pod == pod);
  // Pools in Karpenter's order: equal weights, so name descending.
  CHECK(e.message ==
        "nodepool beta: no instance type has room for cpu=100 memory=512Mi gpus=0 plus daemonset "
        "overhead; "
        "nodepool alpha: no instance type has room for cpu=100 memory=512Mi gpus=0 plus daemonset "
        "overhead");
  CHECK(rig.cluster.pod(pod).pending_reason == e.message);
  CHECK(rig.cluster.pod(pod).nominated == kNoNode);

  // Re-triggered at 1 + 10 s; that batch closes after its idle second.
  rig.run_to_just_before(seconds(12));
  CHECK(rig.provisioner.solves() == 1);
  rig.run_to(seconds(12));
  CHECK(rig.provisioner.solves() == 2);
  // The reason did not change, so it is not reported again.
  CHECK(rig.bus.count(EventKind::PodUnschedulable) == 1);
  rig.run_to(seconds(23));
  CHECK(rig.provisioner.solves() == 3);
}

TEST_CASE("a second batch puts a pod on a node that is still launching", "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  PodId first = rig.new_pod(1000, 1024);
  rig.run_to(seconds(1));
  REQUIRE(rig.cluster.nodes().size() == 1);
  CHECK(rig.cluster.node(0).instance_type == "c5.large");

  rig.run_to(seconds(3));
  PodId second = rig.new_pod(500, 512);
  rig.run_to(seconds(4));  // the fake cloud has not started the node: still in flight
  CHECK(rig.cluster.node(0).phase == NodePhase::Launching);
  CHECK(rig.provisioner.solves() == 2);
  // 1000m + 500m fit the c5.large's 1930m: no second node.
  CHECK(rig.cluster.nodes().size() == 1);
  CHECK(rig.cloud.launch_calls.size() == 1);
  CHECK(rig.cluster.pod(second).nominated == 0);
  CHECK(rig.cluster.pod(first).nominated == 0);
  std::vector<PodId> nominated;
  for (const RecordedEvent& e : rig.bus.of_kind(EventKind::PodNominated))
    nominated.push_back(e.pod);
  CHECK(nominated == std::vector<PodId>{first, second});  // the first pod is not announced twice
  CHECK(rig.bus.seconds_of(EventKind::PodNominated) == std::vector<double>{1, 4});
}

TEST_CASE("a NodeClaim whose offerings ran out in the same batch fails to launch",
          "[provisioning]") {
  // One offering with room for one instance; each pod needs a node of its own (1500m of 1930m).
  Ec2Rig rig(scarce_catalog(1), {make_pool("default")});
  PodId first = rig.new_pod(1500, 512);
  PodId second = rig.new_pod(1500, 512);
  rig.run_to(seconds(1));

  CHECK(rig.cluster.nodes().size() == 1);
  CHECK(rig.cluster.pod(first).nominated == 0);
  REQUIRE(rig.bus.count(EventKind::LaunchFailed) == 1);
  const RecordedEvent failed = rig.bus.of_kind(EventKind::LaunchFailed).front();
  CHECK(failed.time == at(seconds(1)));
  CHECK(failed.message == "nodepool default: launch failed, no offering with capacity");
  CHECK(rig.cluster.pod(second).nominated == kNoNode);
  CHECK(rig.cluster.pod(second).pending_reason == failed.message);

  // The pod is retried (11 s, batch closes at 12 s); the solve now sees the offering exhausted.
  rig.run_to(seconds(12));
  CHECK(rig.provisioner.solves() == 2);
  REQUIRE(rig.bus.count(EventKind::PodUnschedulable) == 1);
  const RecordedEvent e = rig.bus.of_kind(EventKind::PodUnschedulable).front();
  CHECK(e.time == at(seconds(12)));
  CHECK(e.pod == second);
  CHECK(e.message == "nodepool default: no available offering (insufficient capacity)");
  CHECK(rig.cluster.nodes().size() == 1);
}

TEST_CASE("a launch into exhausted capacity fails, is cached, and the next solve avoids it",
          "[provisioning]") {
  // Karpenter learns of a shortage only when CreateFleet fails: the first batch plans a claim and
  // its launch fails; the offerings are cached unavailable for 3 minutes, so the retry (10 s
  // later, batch closing 1 s after) finds no offering and reports why.
  Ec2Rig rig(scarce_catalog(0), {make_pool("default")});
  PodId pod = rig.new_pod(500, 512);
  rig.run_to(seconds(1));
  CHECK(rig.cluster.nodes().empty());
  CHECK(rig.bus.count(EventKind::LaunchFailed) == 1);
  CHECK(rig.bus.count(EventKind::PodUnschedulable) == 0);
  rig.run_to(seconds(12));
  CHECK(rig.provisioner.solves() == 2);
  REQUIRE(rig.bus.count(EventKind::PodUnschedulable) == 1);
  CHECK(rig.bus.of_kind(EventKind::PodUnschedulable).front().pod == pod);
  CHECK(rig.bus.of_kind(EventKind::PodUnschedulable).front().message ==
        "nodepool default: no available offering (insufficient capacity)");
}

TEST_CASE("a pod whose new NodeClaim fails to launch loses its old nomination and is retried",
          "[provisioning]") {
  // m5.large instances (1930m each), and room for two: the cloud fails every launch after the
  // second (Karpenter's fake: AllowedCreateCalls).
  FakeRig rig(scarce_catalog(std::nullopt), {make_pool("default")});
  rig.cloud.allow_launches(2);
  PodId small = rig.new_pod(1000, 512);
  rig.run_to(seconds(1));
  REQUIRE(rig.cluster.nodes().size() == 1);
  CHECK(rig.cluster.pod(small).nominated == 0);

  // Two bigger pods: the solve (CPU descending) puts one on the in-flight node, which leaves no
  // room for the small pod there; the small pod and the other big one need two new claims, and
  // only one instance of capacity is left.
  rig.run_to(seconds(3));
  PodId big_a = rig.new_pod(1500, 512);
  PodId big_b = rig.new_pod(1500, 512);
  rig.run_to(seconds(4));
  CHECK(rig.provisioner.solves() == 2);
  CHECK(rig.cluster.nodes().size() == 2);
  CHECK(rig.cluster.pod(big_a).nominated == 0);
  CHECK(rig.cluster.pod(big_b).nominated == 1);
  CHECK(rig.bus.count(EventKind::LaunchFailed) == 1);
  // The node it was nominated to is now planned full, and its own claim did not launch: it must
  // not keep the stale nomination, or nothing ever retries it.
  CHECK(rig.cluster.pod(small).nominated == kNoNode);
  rig.run_to(seconds(15));  // retrigger at 4 + 10 s, batch closes at 15 s
  CHECK(rig.provisioner.solves() == 3);
}

// kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/launch_test.go, "should delete
// the nodeclaim if InsufficientCapacity is returned from the cloudprovider": the claim is gone
// and its pods go back to the provisioner, which launches for them at its next try.
TEST_CASE("a NodeClaim the cloud has no capacity for is dropped and its pods are retried",
          "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  rig.cloud.fail_next_launch();
  PodId pod = rig.new_pod(1500, 2048);
  rig.run_to(seconds(1));
  CHECK(rig.cloud.launch_calls.size() == 1);
  CHECK(rig.cloud.launches_failed() == 1);
  CHECK(rig.cluster.nodes().empty());
  CHECK(rig.bus.count(EventKind::NodeClaimCreated) == 0);
  REQUIRE(rig.bus.count(EventKind::LaunchFailed) == 1);
  CHECK(rig.cluster.pod(pod).nominated == kNoNode);
  CHECK(rig.cluster.pod(pod).pending_reason ==
        "nodepool default: launch failed, no offering with capacity");

  // Retriggered at 1 + 10 s, the batch closes at 12 s; the cloud has capacity again.
  rig.run_to_just_before(seconds(12));
  CHECK(rig.cloud.launch_calls.size() == 1);
  rig.run_to(seconds(12));
  REQUIRE(rig.cloud.launch_calls.size() == 2);
  REQUIRE(rig.cloud.launch_calls[1].node.has_value());
  const Node& n = rig.cluster.node(*rig.cloud.launch_calls[1].node);
  CHECK(n.instance_type == "c5.large");
  CHECK(rig.cluster.pod(pod).nominated == n.id);
  CHECK(rig.bus.count(EventKind::NodeClaimCreated) == 1);
}

// aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go, Insufficient Capacity
// Error Cache: "should launch instances in a different zone on second reconciliation attempt
// with Insufficient Capacity Error Cache fallback".
TEST_CASE("after insufficient capacity in one zone the next try launches in another",
          "[provisioning]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  const auto c5 = static_cast<std::uint32_t>(*rig.catalog.index_of("c5.large"));
  const std::uint32_t zone_a = *rig.catalog.find_offering(c5, "us-east-1a", CapacityType::OnDemand);
  rig.cloud.fail_offering(zone_a);
  PodId pod = rig.new_pod(1500, 2048);
  rig.run_to(seconds(1));
  CHECK(rig.cluster.nodes().empty());
  CHECK(rig.cloud.marked_unavailable == std::vector<std::uint32_t>{zone_a});
  CHECK(rig.cloud.usable_offerings()[zone_a] == 0);

  rig.run_to(seconds(12));
  REQUIRE(rig.cluster.nodes().size() == 1);
  const Node& n = rig.cluster.node(0);
  CHECK(n.instance_type == "c5.large");  // still the cheapest type; its other zone had capacity
  CHECK(n.zone == "us-east-1b");
  CHECK(rig.cluster.pod(pod).nominated == n.id);
}

// aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go, Insufficient Capacity
// Error Cache: "should launch instances of different type on second reconciliation attempt with
// Insufficient Capacity Error Cache fallback".
TEST_CASE("after insufficient capacity for a type the next try launches the next cheapest type",
          "[provisioning]") {
  NodePool pool = on_demand_pool("default");
  pool.requirements.add(std::string(label::kZone), in({"us-east-1a"}));
  FakeRig rig(small_catalog(), {pool});
  const auto c5 = static_cast<std::uint32_t>(*rig.catalog.index_of("c5.large"));
  rig.cloud.fail_type(c5);
  PodId pod = rig.new_pod(1500, 2048);
  rig.run_to(seconds(1));
  CHECK(rig.cluster.nodes().empty());
  REQUIRE(rig.cloud.launch_calls.size() == 1);
  CHECK(rig.cloud.launch_calls[0].types.front().type == c5);

  rig.run_to(seconds(12));
  REQUIRE(rig.cloud.launch_calls.size() == 2);
  // The solver no longer offers the type whose only allowed offering is out of capacity.
  for (const InstanceTypeOption& option : rig.cloud.launch_calls[1].types) CHECK(option.type != c5);
  REQUIRE(rig.cluster.nodes().size() == 1);
  CHECK(rig.cluster.node(0).instance_type == "m5.large");  // $0.096, the next that fits
  CHECK(rig.cluster.pod(pod).nominated == 0);
}

// karpenter pkg/controllers/provisioning/dra_test.go "should reject DRA pods with a DRAError when
// IgnoreDRARequests is enabled (N1)": with --ignore-dra-requests (true by default) a pod with
// ResourceClaims gets no NodeClaim and stays pending with the DRAError's message; a pod without
// claims in the same batch is provisioned for.
TEST_CASE("Karpenter ignores pods with ResourceClaims under ignore-dra-requests",
          "[provisioning][dra]") {
  FakeRig rig(small_catalog(), {on_demand_pool("default")});
  PodSpec dra;
  dra.requests = pod_requests(1500, 2048);
  dra.resource_claims.push_back(
      {.name = "gpu",
       .source = "gpu-claim",
       .requests = {{.name = "req",
                     .device_class = "gpu.nvidia.com",
                     .match = {.driver = "gpu.nvidia.com", .type = "gpu"}}}});
  const PodId pod = add_pending_pod(rig.cluster, rig.specs.add(std::move(dra)), rig.sim.now());
  rig.provisioner.pod_unschedulable(pod);
  rig.run_to(seconds(1));
  CHECK(rig.cluster.nodes().empty());
  CHECK(rig.bus.count(EventKind::NodeClaimCreated) == 0);
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Pending);
  CHECK(rig.cluster.pod(pod).pending_reason ==
        "pod has Dynamic Resource Allocation requirements that are not yet supported by "
        "Karpenter");
  REQUIRE(rig.bus.count(EventKind::PodUnschedulable) == 1);
  CHECK(rig.bus.of_kind(EventKind::PodUnschedulable).front().pod == pod);

  const PodId plain = rig.new_pod(1500, 2048);
  rig.run_to(seconds(3));
  CHECK(rig.cluster.nodes().size() == 1);
  CHECK(rig.cluster.pod(plain).nominated == 0);
  CHECK(rig.cluster.pod(pod).nominated == kNoNode);
  // The reason is written once, not at every batch.
  CHECK(rig.bus.count(EventKind::PodUnschedulable) == 1);
}
