// kube-scheduler's DynamicResources filter as fleetsim models it (issue 26 part 5): a pod with
// ResourceClaims fits a node only where each claim is allocated already or can be allocated
// from the devices the node publishes, first fit in name order; a template's claim is the pod's
// own and goes with it, a shared ResourceClaim pins its pods to one node and frees its devices
// when its last pod goes (kubernetes pkg/scheduler/framework/plugins/dynamicresources).
#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/kube/kube_scheduler.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct DraRig {
  DraRig()
      : scheduler(sim, cluster, bus, [this](PodId p) { unschedulable.push_back(p); },
                  {SchedulerProfile{}}) {}
  DraRig(const DraRig&) = delete;
  DraRig& operator=(const DraRig&) = delete;

  void pass() {
    scheduler.request_pass();
    sim.run_until(sim.now());
  }
  Simulation sim{3};
  Cluster cluster;
  RecordingBus bus;
  SpecStore specs;
  std::vector<PodId> unschedulable;
  KubeScheduler scheduler;
};

DraDevice gpu(int i) {
  return {.name = "gpu-" + std::to_string(i),
          .driver = "gpu.nvidia.com",
          .type = "gpu",
          .product_name = "NVIDIA A10G"};
}
DraDevice mig(int gpu, int i, const std::string& profile) {
  return {.name = "gpu-" + std::to_string(gpu) + "-mig-" + std::to_string(i),
          .driver = "gpu.nvidia.com",
          .type = "mig",
          .product_name = "NVIDIA A100-SXM4-40GB",
          .profile = profile};
}

// A node that publishes `devices` once its GPUs are configured, as Cluster::configure_gpus does.
NodeId add_dra_node(Cluster& cluster, const std::string& name, std::vector<DraDevice> devices) {
  Node n;
  n.name = name;
  n.owner = NodeGroupOwner{.name = "gpu"};
  n.instance_type = "g5.12xlarge";
  n.zone = "us-east-1a";
  n.phase = NodePhase::Initialized;
  n.initialized = true;
  n.allocatable = node_allocatable(4000, 16);
  n.gpu_setup.allocatable = n.allocatable;
  n.gpu_setup.dra_devices = std::move(devices);
  n.labels = Requirements::from_labels(
      {{std::string(label::kZone), n.zone}, {std::string(label::kHostname), name}});
  const NodeId id = cluster.add_node(std::move(n));
  cluster.configure_gpus(id);
  return id;
}

// A pod spec with one claim of one request.
PodSpec claim_spec(const std::string& shared, DraMatch match, std::int64_t count = 1,
                   bool all = false) {
  PodSpec s;
  s.requests = pod_requests(500, 512);
  s.resource_claims.push_back({.name = "gpu",
                               .shared = shared,
                               .source = shared.empty() ? "gpu-template" : "shared",
                               .requests = {{.name = "req",
                                             .device_class = "gpu.nvidia.com",
                                             .match = std::move(match),
                                             .count = count,
                                             .all = all}}});
  return s;
}

DraMatch whole_gpu() { return {.driver = "gpu.nvidia.com", .type = "gpu"}; }

std::vector<std::uint32_t> devices_of(const Cluster& c, const std::string& key) {
  auto it = c.dra_claims().find(key);
  return it == c.dra_claims().end() ? std::vector<std::uint32_t>{} : it->second.devices;
}

}  // namespace

TEST_CASE("template claims take a node's GPUs first fit in name order and free them with the pod",
          "[kube][dra]") {
  DraRig rig;
  // A node without devices sorts first: a pod with claims never goes there.
  const NodeId cpu = add_node(rig.cluster, {.name = "a-cpu"});
  const NodeId gpus = add_dra_node(rig.cluster, "b-gpu", {gpu(0), gpu(1)});
  const PodSpec* spec = rig.specs.add(claim_spec("", whole_gpu()));
  const PodId p1 = add_pending_pod(rig.cluster, spec, kSimStart);
  const PodId p2 = add_pending_pod(rig.cluster, spec, kSimStart);
  const PodId p3 = add_pending_pod(rig.cluster, spec, kSimStart);
  rig.pass();
  CHECK(rig.cluster.pod(p1).node == gpus);
  CHECK(rig.cluster.pod(p2).node == gpus);
  CHECK(rig.cluster.pod(p3).node == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{p3});
  CHECK(devices_of(rig.cluster, "uid-0/gpu") == std::vector<std::uint32_t>{0});
  CHECK(devices_of(rig.cluster, "uid-1/gpu") == std::vector<std::uint32_t>{1});
  CHECK(rig.cluster.node(gpus).dra_allocated == std::vector<std::uint8_t>{1, 1});
  CHECK(rig.cluster.node(cpu).pods.empty());

  // The first pod goes: its claim and gpu-0 with it; the third pod takes gpu-0.
  evict(rig.cluster, rig.bus, p1, rig.sim.now());
  CHECK(rig.cluster.dra_claims().count("uid-0/gpu") == 0);
  CHECK(rig.cluster.node(gpus).dra_allocated == std::vector<std::uint8_t>{0, 1});
  rig.scheduler.cluster_changed();
  rig.sim.run_until(rig.sim.now() + seconds(1));
  CHECK(rig.cluster.pod(p3).node == gpus);
  CHECK(devices_of(rig.cluster, "uid-2/gpu") == std::vector<std::uint32_t>{0});
}

TEST_CASE("a shared ResourceClaim pins its pods to its node until the last one goes",
          "[kube][dra]") {
  DraRig rig;
  const NodeId a = add_dra_node(rig.cluster, "a-gpu", {gpu(0)});
  const NodeId b = add_dra_node(rig.cluster, "b-gpu", {gpu(0), gpu(1)});
  const PodSpec* spec = rig.specs.add(claim_spec("default/shared", whole_gpu()));
  const PodId p1 = add_pending_pod(rig.cluster, spec, kSimStart);
  rig.pass();
  const NodeId first = rig.cluster.pod(p1).node;
  REQUIRE((first == a || first == b));
  // Both nodes have a free GPU, yet the claim's later pods go where it is allocated.
  const PodId p2 = add_pending_pod(rig.cluster, spec, kSimStart);
  const PodId p3 = add_pending_pod(rig.cluster, spec, kSimStart);
  rig.pass();
  CHECK(rig.cluster.pod(p2).node == first);
  CHECK(rig.cluster.pod(p3).node == first);
  const DraAllocation& claim = rig.cluster.dra_claims().at("default/shared");
  CHECK(claim.node == first);
  CHECK(claim.pods == 3);
  CHECK(claim.devices == std::vector<std::uint32_t>{0});

  evict(rig.cluster, rig.bus, p1, rig.sim.now());
  evict(rig.cluster, rig.bus, p2, rig.sim.now());
  CHECK(rig.cluster.dra_claims().at("default/shared").pods == 1);
  CHECK(rig.cluster.node(first).dra_allocated.front() == 1);
  evict(rig.cluster, rig.bus, p3, rig.sim.now());
  CHECK(rig.cluster.dra_claims().empty());
  CHECK(rig.cluster.node(first).dra_allocated.front() == 0);
}

TEST_CASE("a claim's MIG profile selector count and All mode pick exact devices", "[kube][dra]") {
  DraRig rig;
  const NodeId n = add_dra_node(
      rig.cluster, "p4d",
      {mig(0, 0, "3g.40gb"), mig(0, 1, "3g.40gb"), mig(1, 0, "1g.10gb"), mig(1, 1, "3g.40gb")});
  DraMatch three_g{.driver = "gpu.nvidia.com", .type = "mig", .profile = "3g.40gb"};
  const PodId two =
      add_pending_pod(rig.cluster, rig.specs.add(claim_spec("", three_g, 2)), kSimStart);
  rig.pass();
  REQUIRE(rig.cluster.pod(two).node == n);
  CHECK(devices_of(rig.cluster, "uid-0/gpu") == std::vector<std::uint32_t>{0, 1});
  // All: every matching device, and none may be in use; the one 3g left is free.
  const PodId all =
      add_pending_pod(rig.cluster, rig.specs.add(claim_spec("", three_g, 1, true)), kSimStart);
  rig.pass();
  CHECK(rig.cluster.pod(all).node == kNoNode);
  evict(rig.cluster, rig.bus, two, rig.sim.now());
  rig.scheduler.cluster_changed();
  rig.sim.run_until(rig.sim.now() + seconds(1));
  CHECK(rig.cluster.pod(all).node == n);
  CHECK(devices_of(rig.cluster, "uid-1/gpu") == std::vector<std::uint32_t>{0, 1, 3});
  // A whole-GPU request matches none of the MIG devices.
  const PodId whole =
      add_pending_pod(rig.cluster, rig.specs.add(claim_spec("", whole_gpu())), kSimStart);
  rig.pass();
  CHECK(rig.cluster.pod(whole).node == kNoNode);
}

TEST_CASE("a pod without claims binds to a DRA node by its requests alone", "[kube][dra]") {
  DraRig rig;
  const NodeId n = add_dra_node(rig.cluster, "gpu", {gpu(0)});
  const PodId p = add_pending_pod(
      rig.cluster, rig.specs.add(PodSpec{.requests = pod_requests(500, 512)}), kSimStart);
  rig.pass();
  CHECK(rig.cluster.pod(p).node == n);
  CHECK(rig.cluster.dra_claims().empty());
  CHECK(rig.cluster.node(n).dra_allocated == std::vector<std::uint8_t>{0});
}
