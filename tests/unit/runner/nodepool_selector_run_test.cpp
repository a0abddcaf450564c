// A pod that selects karpenter.sh/nodepool lands only on that NodePool's nodes: a node of an
// eksctl node group has no such label, so kube-scheduler leaves the pod to Karpenter even when
// the node group's node has room (the label is well known to Karpenter's templates, not to
// nodes that lack it).
#include <catch2/catch.hpp>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "one_type_pool.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct Binding final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::PodScheduled && cluster.pod(e.pod).name.starts_with("picky"))
      node_owner = cluster.node(e.node).owner_name();
  }
  std::string node_owner;
};

// The node group's m5.2xlarge has room for the pod; the NodePool launches m5.large.
constexpr std::string_view kNodeGroup = R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
managedNodeGroups:
  - name: system
    instanceType: m5.2xlarge
    desiredCapacity: 1
---
)";

constexpr std::string_view kPicky = R"(apiVersion: v1
kind: Pod
metadata: {name: picky}
spec:
  nodeSelector: {karpenter.sh/nodepool: general}
  containers:
    - name: c
      resources: {requests: {cpu: "1", memory: 1Gi}}
)";

}  // namespace

TEST_CASE("a karpenter.sh/nodepool selector keeps a pod off a node group's node", "[runner]") {
  test::TempDir dir("nodepool-selector");
  dir.write("manifests.yaml",
            std::string(kNodeGroup) + test::one_type_pool("general", "m5.large", "on-demand"));
  dir.write("picky.yaml", std::string(kPicky));
  const auto file = dir.write("scenario.yaml",
                              "name: picky\nduration: 20m\nmanifests: [manifests.yaml]\n"
                              "events:\n  - {at: 10m, apply: picky.yaml}\n");
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  Binding binding;
  run(config, {.event_sinks = {&binding}});
  CHECK(binding.node_owner == "general");
}
