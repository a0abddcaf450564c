// CapacityBuffers under Karpenter: the controller's virtual pods (pkg/state/virtualpods
// BuildVirtualPods, pkg/controllers/capacitybuffer) and the provisioner injecting them into its
// solves (pkg/controllers/provisioning buffers.go, provisioner.go GetPendingPods).
#include "fleetsim/provisioning/capacity_buffers.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"
#include "unit/k8s/cluster_harness.hpp"
#include "unit/provisioning/fake_cloud_provider.hpp"
#include "unit/scheduling/builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

NodePool on_demand_pool() {
  NodePool p = make_pool("default");
  p.requirements.add(std::string(label::kCapacityType), in({"on-demand"}));
  p.requirements.add(std::string(label::kInstanceFamily), in({"m5"}));
  return p;
}

Workload deployment(std::int32_t replicas, std::int64_t cpu_millis) {
  Workload w;
  w.kind = WorkloadKind::Deployment;
  w.name = "web";
  w.pod.labels["app"] = "web";
  w.pod.spec.requests = pod_requests(cpu_millis, 512);
  w.replicas = replicas;
  return w;
}

CapacityBuffer buffer(std::optional<std::int32_t> replicas,
                      std::optional<std::int32_t> percentage = std::nullopt) {
  return CapacityBuffer{
      .name = "spare",
      .scalable_ref =
          CapacityBuffer::ScalableRef{.api_group = "apps", .kind = "Deployment", .name = "web"},
      .replicas = replicas,
      .percentage = percentage};
}

// Karpenter over the fake cloud with the gate on: a Deployment "web" and one buffer on it. The
// Deployment's pods are left pending (no kube-scheduler here), so it keeps no replicas unless a
// test asks.
struct BufferRig {
  BufferRig(CapacityBuffer b, Workload w)
      : catalog(small_catalog()),
        cloud(sim, cluster, bus, catalog),
        provisioner(KarpenterProvisioner::Inputs{
            .sim = sim,
            .cluster = cluster,
            .bus = bus,
            .cloud = cloud,
            .nodepool_inputs = {.catalog = catalog, .node_classes = {}, .daemonsets = {}},
            .nodepools = {on_demand_pool()},
            .settings = {}}),
        workloads(sim, cluster, bus),
        buffers(sim, workloads, {std::move(b)}, [this] { provisioner.buffer_triggered(); }) {
    workloads.add(w, sim.now());
    provisioner.set_capacity_buffers(&buffers);
  }
  BufferRig(const BufferRig&) = delete;
  BufferRig& operator=(const BufferRig&) = delete;

  Catalog catalog;
  Simulation sim{5};
  Cluster cluster;
  RecordingBus bus;
  FakeCloudProvider cloud;
  KarpenterProvisioner provisioner;
  WorkloadController workloads;
  CapacityBufferController buffers;
  SpecStore specs;
};

}  // namespace

// BuildVirtualPods: status.replicas identical pods of the target's template, named
// capacity-buffer-<name>-<i>; the percentage follows the Deployment's spec.replicas at each
// reconcile (virtualpods_test.go, controller's suite_test.go percentage cases).
TEST_CASE("a buffer's virtual pods follow its Deployment's replicas at each reconcile",
          "[provisioning]") {
  BufferRig rig(buffer(std::nullopt, 50), deployment(4, 500));
  rig.buffers.reconcile(rig.sim.now());
  REQUIRE(rig.buffers.virtual_pods().size() == 2);
  CHECK(rig.buffers.status_replicas(0) == 2);
  CHECK(rig.buffers.virtual_pods()[0].uid == "capacity-buffer-default-spare-1");
  CHECK(rig.buffers.virtual_pods()[1].uid == "capacity-buffer-default-spare-2");
  CHECK(rig.buffers.virtual_pods()[0].spec->requests == pod_requests(500, 512));
  CHECK(rig.buffers.virtual_pods()[0].labels->at("app") == "web");
  const std::uint64_t generation = rig.buffers.generation();
  rig.buffers.reconcile(rig.sim.now());
  CHECK(rig.buffers.generation() == generation);  // nothing changed: the same pods
  // 50% of 5 is 2.5: ceil gives 3.
  rig.workloads.scale(*rig.workloads.find_deployment("default", "web"), 5,
                      ReplicasSource::Scripted);
  rig.buffers.reconcile(rig.sim.now());
  CHECK(rig.buffers.virtual_pods().size() == 3);
  CHECK(rig.buffers.generation() == generation + 1);
}

// isBufferReadyForProvisioning: a buffer whose status.replicas is 0 has no virtual pods.
TEST_CASE("a buffer of zero replicas injects nothing", "[provisioning]") {
  BufferRig rig(buffer(0), deployment(0, 500));
  rig.buffers.start(rig.sim.now());
  rig.sim.run_until(at(seconds(40)));
  CHECK(rig.buffers.virtual_pods().empty());
  CHECK(rig.cloud.launch_calls.empty());
}

// The controller's reconcile triggers the provisioner; the batch closes a second later and its
// solve launches a NodeClaim for the virtual pods, which are never nominated (scheduler.go: only
// real pods). The next reconcile's solve finds them room on that claim, now an existing node
// (bufferPodCountsFromResults), and launches nothing more.
TEST_CASE("virtual pods launch a NodeClaim once and are then counted on its node",
          "[provisioning]") {
  BufferRig rig(buffer(2), deployment(0, 1500));
  rig.buffers.start(rig.sim.now());
  rig.sim.run_until(at(seconds(1)));
  CHECK(rig.provisioner.solves() == 1);
  REQUIRE(rig.cloud.launch_calls.size() == 1);
  REQUIRE(rig.cloud.launch_calls[0].node);
  const NodeId node = *rig.cloud.launch_calls[0].node;
  CHECK(rig.bus.count(EventKind::PodNominated) == 0);
  // New claims' virtual pods are not counted: the node holds none yet.
  CHECK(rig.provisioner.launcher().claims().buffer_pods(node) == 0);

  rig.sim.run_until(at(seconds(31)));
  CHECK(rig.provisioner.solves() == 2);
  CHECK(rig.cloud.launch_calls.size() == 1);
  CHECK(rig.provisioner.launcher().claims().buffer_pods(node) == 2);
  const auto counted = rig.bus.of_kind(EventKind::NodeBufferPods);
  REQUIRE(counted.size() == 1);
  CHECK(counted[0].node == node);
  CHECK(counted[0].to == 2);
  CHECK(counted[0].time == at(seconds(31)));
}

// Real pods may take the buffer's room (virtual pods hold nothing): the real pod, larger, is
// solved first (the queue is sorted by CPU and memory) and planned onto the node, and the same
// solve launches new room for the displaced virtual pod.
TEST_CASE("a real pod takes the buffer's room and the buffer gets a new node", "[provisioning]") {
  BufferRig rig(buffer(1), deployment(0, 1500));
  rig.buffers.start(rig.sim.now());
  rig.sim.run_until(at(seconds(31)));
  REQUIRE(rig.cloud.launch_calls.size() == 1);
  const NodeId first = *rig.cloud.launch_calls[0].node;
  REQUIRE(rig.provisioner.launcher().claims().buffer_pods(first) == 1);

  rig.sim.run_until(at(seconds(40)));
  const PodId real =
      add_pending_pod(rig.cluster, rig.specs.add(pod_requests(1800, 512)), rig.sim.now());
  rig.provisioner.pod_unschedulable(real);
  rig.sim.run_until(at(seconds(41)));
  CHECK(rig.cluster.pod(real).nominated == first);
  REQUIRE(rig.cloud.launch_calls.size() == 2);
  const NodeId second = *rig.cloud.launch_calls[1].node;
  CHECK(second != first);
  // The buffer's pod went to the new claim, which the count leaves out until the next solve.
  CHECK(rig.provisioner.launcher().claims().buffer_pods(first) == 0);
  // kube-scheduler binds the real pod where Karpenter planned it.
  rig.cloud.start(first);
  rig.cloud.start(second);
  rig.cluster.bind(real, first, rig.sim.now());
  rig.sim.run_until(at(seconds(61)));
  CHECK(rig.provisioner.launcher().claims().buffer_pods(second) == 1);
  CHECK(rig.cloud.launch_calls.size() == 2);
}

// A scalableRef to a Deployment that does not exist yet leaves the buffer not ready
// (ScalableRefNotFound): no virtual pods, no trigger.
TEST_CASE("a buffer whose Deployment does not exist yet injects nothing", "[provisioning]") {
  Workload later = deployment(2, 500);
  later.name = "other";
  BufferRig rig(buffer(2), later);
  rig.buffers.start(rig.sim.now());
  rig.sim.run_until(at(seconds(61)));
  CHECK(rig.buffers.virtual_pods().empty());
  CHECK(rig.buffers.status_replicas(0) == 0);
}
