// The Cluster Autoscaler's GPU readiness and health checks.
#include "fleetsim/provisioning/cluster_autoscaler/gpu_readiness.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

namespace {

Node gpu_node(bool labelled) {
  Node n;
  n.phase = NodePhase::Initialized;
  if (labelled) n.labels.add(std::string(kAwsGpuLabel), Requirement::single("nvidia-a100"));
  return n;
}

}  // namespace

TEST_CASE("a GPU-labelled node without nvidia.com/gpu is taken for unready", "[provisioning]") {
  // gpu_processor_test.go TestFilterOutNodesWithUnreadyResources: nodeGpuReady (label, 1 GPU)
  // ready; nodeGpuUnready (label, 0) and nodeGpuUnready2 (label, none) unready; nodeVanillaReady
  // (no label) ready.
  ResourceRegistry registry;
  const ResourceIndex mig = *registry.intern("nvidia.com/mig-3g.40gb");
  const ResourceIndex shared = *registry.intern("nvidia.com/gpu.shared");
  Node ready = gpu_node(true);
  ready.allocatable[resource::kNvidiaGpu] = 1;
  CHECK_FALSE(gpu_resource_unready(ready, registry, GpuReadinessCheck::ResourceName));
  CHECK(gpu_resource_unready(gpu_node(true), registry, GpuReadinessCheck::ResourceName));
  CHECK_FALSE(gpu_resource_unready(gpu_node(false), registry, GpuReadinessCheck::ResourceName));
  // autoscaler#8095: MIG devices or renamed time-sliced replicas alone leave it unready for ever;
  // the proposed IsGPUResource takes any nvidia.com/ resource (PR #9673's test cases).
  Node sliced = gpu_node(true);
  sliced.allocatable[mig] = 16;
  CHECK(gpu_resource_unready(sliced, registry, GpuReadinessCheck::ResourceName));
  CHECK_FALSE(gpu_resource_unready(sliced, registry, GpuReadinessCheck::AnyNvidiaResource));
  Node time_sliced = gpu_node(true);
  time_sliced.allocatable[shared] = 4;
  CHECK(gpu_resource_unready(time_sliced, registry, GpuReadinessCheck::ResourceName));
  CHECK_FALSE(gpu_resource_unready(time_sliced, registry, GpuReadinessCheck::AnyNvidiaResource));
  // A MIG layout's devices are advertised whether or not a pod of the run names them.
  Node layout = gpu_node(true);
  layout.initialized = true;
  layout.gpu_setup.mig.push_back({.profile = "1g.5gb", .per_gpu = 7});
  CHECK(gpu_resource_unready(layout, registry, GpuReadinessCheck::ResourceName));
  CHECK_FALSE(gpu_resource_unready(layout, registry, GpuReadinessCheck::AnyNvidiaResource));
  // The fix still takes a labelled node advertising nothing for unready.
  CHECK(gpu_resource_unready(gpu_node(true), registry, GpuReadinessCheck::AnyNvidiaResource));
}

TEST_CASE("an unready node is NotStarted for max-node-startup-time then Unready",
          "[provisioning]") {
  // clusterstate.go updateReadinessStats.
  const ClusterAutoscalerSettings s;
  Node n;
  n.created = kSimStart + minutes(1);
  CHECK(ca_node_readiness(n, true, kSimStart + hours(1), s) == CaNodeReadiness::Ready);
  CHECK(ca_node_readiness(n, false, kSimStart + minutes(15), s) == CaNodeReadiness::NotStarted);
  CHECK(ca_node_readiness(n, false, kSimStart + minutes(16), s) == CaNodeReadiness::Unready);
}

TEST_CASE("the cluster is unhealthy past both unready limits", "[provisioning]") {
  // clusterstate_test.go TestTooManyUnready (OkTotalUnreadyCount 1, MaxTotalUnreadyPercentage
  // 10: 2 unready of 2 is unhealthy) and the defaults (3 and 45%).
  ClusterAutoscalerSettings s;
  s.ok_total_unready_count = 1;
  s.max_total_unready_percentage = 10;
  CHECK_FALSE(cluster_healthy(2, 2, s));
  CHECK(cluster_healthy(1, 2, s));
  const ClusterAutoscalerSettings d;
  CHECK(cluster_healthy(3, 4, d));        // not more than 3
  CHECK_FALSE(cluster_healthy(4, 8, d));  // 4 > 3 and 4 > 3.6
  CHECK(cluster_healthy(4, 9, d));        // 4 > 3 but 4 ≤ 4.05
  // A group lacking Ready nodes below its acceptable minimum.
  CHECK_FALSE(node_group_healthy(0, 4, 0, 4, d));
  CHECK(node_group_healthy(1, 3, 0, 4, d));  // 3 unjustified: not more than 3
  CHECK(node_group_healthy(0, 0, 0, 0, d));  // a scale-up's nodes are justified
}
