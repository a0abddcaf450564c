// eksctl node groups beside Karpenter's NodePools (issue 11): a managed node group for system
// pods keeps its desired capacity, hosts the pods that fit it, replaces a lost instance, and is
// never Karpenter's to consolidate.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct Nodes final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::NodeLaunched) launched.push_back(cluster.node(e.node));
    if (e.kind == EventKind::NodeDeleting) deleted.push_back(cluster.node(e.node));
    if (e.kind == EventKind::PodScheduled) bound_to.push_back(cluster.node(e.node).name);
  }
  std::vector<Node> launched;
  std::vector<Node> deleted;
  std::vector<std::string> bound_to;
};

const std::string kManifests = R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
managedNodeGroups:
  - name: system
    instanceType: m5.large
    spot: true
    desiredCapacity: 2
    availabilityZones: [us-east-1a, us-east-1b]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}
      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}
---
apiVersion: v1
kind: Pod
metadata:
  name: coredns
  annotations: {fleetsim.io/duration: 3h}
spec:
  restartPolicy: Never
  nodeSelector: {eks.amazonaws.com/nodegroup: system}
  containers:
    - name: c
      resources: {requests: {cpu: 100m, memory: 128Mi}}
)";

}  // namespace

TEST_CASE("a node group beside Karpenter keeps its nodes, and Karpenter leaves them alone",
          "[runner][node-groups]") {
  test::TempDir dir("static-node-groups");
  dir.write("manifests.yaml", kManifests);
  const auto file =
      dir.write("scenario.yaml",
                "name: ng\nduration: 2h\nmanifests: [manifests.yaml]\nevents:\n  - {at: 30m, "
                "spot_interruption: {instance_type: m5.large, zone: us-east-1a, count: 1}}\n");
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  Nodes nodes;
  const RunResult result = run(config, {.event_sinks = {&nodes}});

  // Two spot m5.large from the start, one per zone; the pod lands on one of them, and Karpenter
  // launches nothing for it.
  REQUIRE(nodes.launched.size() == 3);
  CHECK(nodes.launched[0].owner_name() == "system");
  CHECK(nodes.launched[0].capacity_type == CapacityType::Spot);
  CHECK(nodes.launched[0].zone == "us-east-1a");
  CHECK(nodes.launched[1].zone == "us-east-1b");
  REQUIRE_FALSE(nodes.bound_to.empty());
  CHECK(nodes.bound_to[0].starts_with("system-"));
  // The interruption at 30 minutes takes the us-east-1a node; the group replaces it there (the
  // zone it now lacks). Otherwise nothing goes: Karpenter's consolidation does not touch the
  // empty node-group node.
  REQUIRE(nodes.deleted.size() == 1);
  CHECK(nodes.deleted[0].zone == "us-east-1a");
  CHECK(nodes.launched[2].owner_name() == "system");
  CHECK(nodes.launched[2].zone == "us-east-1a");
  REQUIRE(result.cost.by_nodegroup);
  CHECK(result.cost.by_nodegroup->count("system") == 1);
  CHECK(result.cost.by_nodepool.empty());
}
