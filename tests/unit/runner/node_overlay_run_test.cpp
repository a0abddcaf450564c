// NodeOverlays over a run (issue 26): behind Karpenter's feature gate, an overlay's price moves
// the launch choice and the bill, and its capacity lets the provisioner launch for pods asking
// for a resource EC2's instance types do not list (a MIG profile).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::string pool(const std::string& types) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [)" +
         types + R"(]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {role: test}
---
)";
}

std::string pod(const std::string& gpu_resource) {
  return R"(apiVersion: v1
kind: Pod
metadata:
  name: worker
  annotations: {fleetsim.io/duration: 1h, karpenter.sh/do-not-disrupt: "true"}
spec:
  restartPolicy: Never
  containers:
    - name: c
      resources: {requests: {cpu: "2", memory: 8Gi, )" +
         gpu_resource + R"(: 1}}
---
)";
}

// A 30% discount on g5 (a Savings Plan, say): it makes g5.xlarge (1.006 × 0.7 = 0.7042) cheaper
// than g6.xlarge (0.8048).
const std::string kG5Discount = R"(apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: g5-savings-plan}
spec:
  requirements:
    - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}
  priceAdjustment: "-30%"
)";

const std::string kMigCapacity = R"(apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: p4d-mig}
spec:
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [p4d.24xlarge]}
  capacity: {nvidia.com/mig-3g.20gb: 16}
)";

struct Launches final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::NodeLaunched) launched.push_back(cluster.node(e.node));
  }
  std::vector<Node> launched;
};

struct OverlayRun {
  OverlayRun(const std::string& manifests, const std::string& karpenter) : dir("overlay-run") {
    dir.write("manifests.yaml", manifests);
    const auto file = dir.write(
        "scenario.yaml", "name: overlay\nduration: 30m\nmanifests: [manifests.yaml]\n" + karpenter);
    config = load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&launches}});
  }
  std::vector<std::string> warning_codes() const {
    std::vector<std::string> out;
    for (const Warning& w : config.warnings) out.emplace_back(to_string(w.code));
    return out;
  }
  test::TempDir dir;
  ScenarioConfig config;
  Launches launches;
  RunResult result;
};

const std::string kGateOn = "karpenter: {feature_gates: {node_overlay: true}}\n";

}  // namespace

TEST_CASE("a NodeOverlay discount moves the launch choice and the bill", "[runner]") {
  const OverlayRun on(pool("g5.xlarge, g6.xlarge") + pod("nvidia.com/gpu") + kG5Discount, kGateOn);
  REQUIRE(on.launches.launched.size() == 1);
  const Node& node = on.launches.launched[0];
  CHECK(node.instance_type == "g5.xlarge");
  CHECK(node.price_per_hour == Approx(0.7042).epsilon(1e-12));
  CHECK(node.price_overlay.text == "-30%");
  CHECK(on.warning_codes().empty());
  // The bill is the overlaid price over the node's half hour.
  const double hours = on.result.cost.by_instance_type.at("g5.xlarge") / 0.7042;
  CHECK(hours > 0.4);
  CHECK(hours < 0.51);  // at the undiscounted 0.8048 it would read 0.57
  // The efficiency bound prices the kind as the discounted pool could buy it, so it stays a
  // lower bound (at g6.xlarge's 0.8048 it would exceed what the run paid).
  CHECK(on.result.efficiency.lower_bound_usd > 0);
  CHECK(on.result.efficiency.lower_bound_usd <= on.result.efficiency.actual_usd);
}

TEST_CASE("a NodeOverlay with the gate off is ignored with a warning", "[runner]") {
  const OverlayRun off(pool("g5.xlarge, g6.xlarge") + pod("nvidia.com/gpu") + kG5Discount, "");
  REQUIRE(off.launches.launched.size() == 1);
  CHECK(off.launches.launched[0].instance_type == "g6.xlarge");
  CHECK(off.launches.launched[0].price_per_hour == 0.8048);
  CHECK(off.warning_codes() == std::vector<std::string>{"node-overlay-gate-off"});
  CHECK(off.config.warnings[0].message ==
        "NodeOverlay g5-savings-plan is ignored: Karpenter's NodeOverlay feature gate is alpha "
        "and off by default; set karpenter.feature_gates.node_overlay: true to apply it");
}

TEST_CASE("a MIG pod stays pending until a NodeOverlay gives the type its slices", "[runner]") {
  const OverlayRun without(pool("p4d.24xlarge") + pod("nvidia.com/mig-3g.20gb"), kGateOn);
  CHECK(without.launches.launched.empty());
  CHECK(without.result.pods.pending_at_end == 1);

  const OverlayRun with(pool("p4d.24xlarge") + pod("nvidia.com/mig-3g.20gb") + kMigCapacity,
                        kGateOn);
  REQUIRE(with.launches.launched.size() == 1);
  CHECK(with.launches.launched[0].instance_type == "p4d.24xlarge");
  CHECK(with.result.pods.pending_at_end == 0);
}

TEST_CASE("equal-weight overlays on one offering warn and the earlier name applies nowhere",
          "[runner]") {
  const std::string rival = R"(---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: a-list-price}
spec:
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
  price: "5"
)";
  const OverlayRun r(pool("g5.xlarge, g6.xlarge") + pod("nvidia.com/gpu") + kG5Discount + rival,
                     kGateOn);
  REQUIRE(r.warning_codes() == std::vector<std::string>{"node-overlay-conflict"});
  CHECK(r.config.warnings[0].message ==
        "NodeOverlay a-list-price conflicts with NodeOverlay g5-savings-plan (both weight 0) on "
        "instance type g5.xlarge of NodePool gpu: Karpenter marks a-list-price "
        "ValidationSucceeded=False (Conflict) and applies none of it, keeping g5-savings-plan "
        "(the later name at equal weight); give them different weights or disjoint requirements");
  // The discount still applies: g5.xlarge at 0.7042 is launched.
  REQUIRE(r.launches.launched.size() == 1);
  CHECK(r.launches.launched[0].instance_type == "g5.xlarge");
}

TEST_CASE("NodeOverlays under the Cluster Autoscaler are not applied and say so", "[runner]") {
  test::TempDir dir("overlay-ca");
  dir.write("manifests.yaml",
            kG5Discount +
                "---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, "
                "region: us-east-1}\nmanagedNodeGroups:\n  - {name: gpu, instanceType: "
                "g5.xlarge, minSize: 0, maxSize: 2, desiredCapacity: 0}\n");
  const auto file =
      dir.write("scenario.yaml",
                "name: overlay\nduration: 10m\nprovisioner: cluster-autoscaler\nmanifests: "
                "[manifests.yaml]\n" +
                    kGateOn);
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  const auto unused = std::find_if(config.warnings.begin(), config.warnings.end(), [](auto& w) {
    return w.code == WarningCode::NodeOverlayUnused;
  });
  REQUIRE(unused != config.warnings.end());
  CHECK(unused->message ==
        "NodeOverlay g5-savings-plan is not applied: NodeOverlays are Karpenter's, and fleetsim "
        "applies them under provisioner: karpenter only");
  CHECK(config.node_overlays.empty());
}
