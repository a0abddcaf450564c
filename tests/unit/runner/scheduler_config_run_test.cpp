// A KubeSchedulerConfiguration among a scenario's manifests takes effect in a run: two
// g5.12xlarge (4 GPUs each), one per zone, the one in us-east-1a running a two-GPU pod; a one-GPU
// pod applied at 10 minutes lands on the empty node under the default profile (LeastAllocated
// over cpu and memory) and on the busy one under MostAllocated with nvidia.com/gpu weighted.
// A Deployment whose schedulerName no profile has stays Pending, and Karpenter, whose m5 NodePool
// could host it, launches nothing for it: no scheduler marks its pods unschedulable (without
// the schedulerName, Karpenter launches two m5.large for them).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct Placements final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::PodScheduled) {
      const std::string& name = cluster.pod(e.pod).name;
      if (name.starts_with("probe")) probe_node = cluster.node(e.node).name;
      if (name.starts_with("filler")) filler_node = cluster.node(e.node).name;
      if (name.starts_with("orphan")) ++orphans_bound;
    }
    if (e.kind == EventKind::NodeLaunched) ++launched;
  }
  std::string probe_node, filler_node;
  int orphans_bound = 0;
  int launched = 0;
  std::vector<std::string> warnings;  // no-scheduler-profile
};

constexpr std::string_view kCluster = R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
managedNodeGroups:
  - name: gpu
    instanceType: g5.12xlarge
    desiredCapacity: 2
    availabilityZones: [us-east-1a, us-east-1b]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: fleetsim}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: fleetsim}}]
---
apiVersion: v1
kind: Pod
metadata: {name: filler}
spec:
  nodeSelector: {topology.kubernetes.io/zone: us-east-1a}
  containers:
    - name: c
      resources: {requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: orphan}
spec:
  replicas: 2
  selector: {matchLabels: {app: orphan}}
  template:
    metadata: {labels: {app: orphan}}
    spec:
      schedulerName: gpu-scheduler
      nodeSelector: {node.kubernetes.io/instance-type: m5.large}
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 1Gi}}
)";

constexpr std::string_view kProbe = R"(apiVersion: v1
kind: Pod
metadata: {name: probe}
spec:
  containers:
    - name: c
      resources: {requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
)";

constexpr std::string_view kPacking = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources:
              - {name: cpu, weight: 1}
              - {name: memory, weight: 1}
              - {name: nvidia.com/gpu, weight: 3}
)";

Placements run_with(std::string_view scheduler_config) {
  test::TempDir dir("scheduler-config");
  std::string manifests(kCluster);
  if (!scheduler_config.empty()) manifests += "---\n" + std::string(scheduler_config);
  dir.write("manifests.yaml", manifests);
  dir.write("probe.yaml", std::string(kProbe));
  const auto file = dir.write("scenario.yaml",
                              "name: packing\nduration: 30m\nmanifests: [manifests.yaml]\n"
                              "events:\n  - {at: 10m, apply: probe.yaml}\n");
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  Placements placements;
  for (const Warning& w : config.warnings)
    if (w.code == WarningCode::NoSchedulerProfile) placements.warnings.push_back(w.message);
  run(config, {.event_sinks = {&placements}});
  return placements;
}

}  // namespace

TEST_CASE("a MostAllocated KubeSchedulerConfiguration packs the GPU pod onto the busy node",
          "[runner][kube]") {
  const Placements spread = run_with("");
  const Placements packed = run_with(kPacking);
  // gpu-lrnws is the node in us-east-1a, with the two-GPU filler; gpu-srqz5 is empty.
  CHECK(spread.filler_node == "gpu-lrnws");
  CHECK(packed.filler_node == "gpu-lrnws");
  CHECK(spread.probe_node == "gpu-srqz5");
  CHECK(packed.probe_node == "gpu-lrnws");
  // The node group's two nodes only: nothing is launched for the Pending orphans.
  CHECK(spread.launched == 2);
  CHECK(packed.launched == 2);
  CHECK(spread.orphans_bound == 0);
  CHECK(packed.orphans_bound == 0);
  CHECK(packed.warnings ==
        std::vector<std::string>{"\"gpu-scheduler\" names no kube-scheduler profile "
                                 "(default-scheduler); its pods stay Pending: no scheduler binds "
                                 "them and no provisioner acts for them"});
}
