// EKS Auto Mode (issue 11): Karpenter with Auto Mode's built-in NodePools, NodeClass, labels,
// node lifetime and management fee.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct Launches final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::NodeLaunched) launched.push_back(cluster.node(e.node));
  }
  std::vector<Node> launched;
};

const std::string kCpuPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations: {fleetsim.io/duration: 2h}
spec:
  restartPolicy: Never
  containers:
    - name: c
      resources: {requests: {cpu: "1", memory: 2Gi}}
---
)";

const std::string kGpuPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      requirements:
        - {key: eks.amazonaws.com/instance-family, operator: In, values: [g5]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
)";

std::filesystem::path catalog_root() {
  return std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog";
}

struct AutoModeRun {
  explicit AutoModeRun(const std::string& manifests, const std::string& rest = "",
                       const std::string& provisioner = "eks-auto-mode")
      : dir("eks-auto-mode") {
    dir.write("manifests.yaml", manifests);
    file = dir.write("scenario.yaml", "name: am\nduration: 1h\nprovisioner: " + provisioner +
                                          "\nmanifests: [manifests.yaml]\n" + rest);
  }
  RunResult run_it() {
    const ScenarioConfig config = load_scenario(file, catalog_root());
    return run(config, {.event_sinks = {&launches}});
  }
  std::string error() {
    const std::string e = test::config_error([&] { load_scenario(file, catalog_root()); });
    const std::size_t at = e.find("manifests.yaml:");
    return at == std::string::npos ? e : e.substr(at + 15);
  }
  test::TempDir dir;
  std::filesystem::path file;
  Launches launches;
};

}  // namespace

TEST_CASE("the management fee is billed per second on top of EC2, exact to the dollar",
          "[runner][auto-mode]") {
  AutoModeRun r(kCpuPod);
  const RunResult result = r.run_it();
  REQUIRE(r.launches.launched.size() == 1);
  const Node& node = r.launches.launched[0];
  // The built-in general-purpose pool: on-demand C, M or R of generation 5 or newer.
  CHECK(node.owner_name() == "general-purpose");
  CHECK(node.instance_type == "c6a.large");
  CHECK(node.capacity_type == CapacityType::OnDemand);
  // c6a.large: $0.0765/h on-demand, so Auto Mode's fee is 12% of it, $0.00918/h, for the
  // node's time from its launch to the run's end.
  const double hours_billed = to_hours(kSimStart + hours(1) - node.billed_from);
  REQUIRE(result.cost.management_fee_usd);
  CHECK(*result.cost.management_fee_usd == Approx(0.00918 * hours_billed).epsilon(1e-12));
  CHECK(result.cost.total_usd ==
        Approx(result.cost.on_demand_usd + result.cost.ebs_usd + 0.00918 * hours_billed)
            .epsilon(1e-12));
  // Auto Mode's NodeClass gives nodes 80 GiB of gp3.
  CHECK(node.ebs_bytes == std::int64_t{80} << 30);
}

TEST_CASE("Karpenter runs bill no management fee", "[runner][auto-mode]") {
  const std::string pool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
)";
  AutoModeRun r(pool + kCpuPod, "", "karpenter");
  CHECK_FALSE(r.run_it().cost.management_fee_usd.has_value());
}

TEST_CASE("Auto Mode's nodes carry its eks.amazonaws.com labels", "[runner][auto-mode]") {
  AutoModeRun r(kGpuPool + R"(apiVersion: v1
kind: Pod
metadata:
  name: gpu
  annotations: {fleetsim.io/duration: 2h}
spec:
  restartPolicy: Never
  nodeSelector: {eks.amazonaws.com/instance-gpu-name: a10g, eks.amazonaws.com/compute-type: auto}
  containers:
    - name: c
      resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
)");
  r.run_it();
  REQUIRE(r.launches.launched.size() == 1);
  CHECK(r.launches.launched[0].owner_name() == "gpu");
  CHECK(r.launches.launched[0].instance_type == "g5.xlarge");
}

TEST_CASE("Auto Mode's rules on NodePools", "[runner][auto-mode]") {
  SECTION("the built-in pools cannot be redefined") {
    AutoModeRun r(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
)");
    CHECK(
        r.error().starts_with("3:18: metadata.name: general-purpose is EKS Auto Mode's built-in "
                              "NodePool, which cannot be changed"));
  }
  SECTION("a NodePool names an Auto Mode NodeClass") {
    AutoModeRun r(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: mine}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)");
    CHECK(r.error().starts_with("7:74: spec.template.spec.nodeClassRef: under EKS Auto Mode"));
  }
  SECTION("an Auto Mode NodeClass needs provisioner: eks-auto-mode") {
    AutoModeRun r(kGpuPool, "", "karpenter");
    CHECK(
        r.error().starts_with("7:71: spec.template.spec.nodeClassRef: an eks.amazonaws.com "
                              "NodeClass is EKS Auto Mode's"));
  }
}

TEST_CASE("Auto Mode's node lifetime: 14 days unless given, at most 21", "[runner][auto-mode]") {
  for (const auto& [expire, expected] : std::vector<std::pair<std::string, SimDuration>>{
           {"", hours(336)},
           {"      expireAfter: 48h\n", hours(48)},
           {"      expireAfter: Never\n", hours(504)},
           {"      expireAfter: 720h\n", hours(504)}}) {
    INFO(expire);
    AutoModeRun r(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: mine}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
)" + expire);
    const ScenarioConfig config = load_scenario(r.file, catalog_root());
    const auto mine = std::find_if(config.nodepools.begin(), config.nodepools.end(),
                                   [](const NodePool& p) { return p.name == "mine"; });
    REQUIRE(mine != config.nodepools.end());
    CHECK(mine->expire_after == expected);
    CHECK(mine->termination_grace_period == hours(24));
    CHECK(config.nodepools.size() == 3);  // and general-purpose, system
  }
}

TEST_CASE("a scripted apply follows the provisioner's rules", "[runner][auto-mode]") {
  const std::string karpenter_pool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: later}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)";
  SECTION("under Auto Mode an applied NodePool names an Auto Mode NodeClass") {
    AutoModeRun r(kCpuPod, "events:\n  - {at: 1h, apply: later.yaml}\n");
    r.dir.write("later.yaml", karpenter_pool);
    const std::string e = test::config_error([&] { load_scenario(r.file, catalog_root()); });
    CHECK(e.find("later.yaml:7:74: spec.template.spec.nodeClassRef: under EKS Auto Mode") !=
          std::string::npos);
  }
  SECTION("under the Cluster Autoscaler an applied NodePool is not used, and says so") {
    AutoModeRun r(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
        "managedNodeGroups: [{name: ng, instanceType: m5.large, minSize: 1, "
        "maxSize: 2}]\n---\n" +
            kCpuPod,
        "events:\n  - {at: 1h, apply: later.yaml}\n", "cluster-autoscaler");
    r.dir.write("later.yaml", karpenter_pool);
    const ScenarioConfig config = load_scenario(r.file, catalog_root());
    CHECK(std::any_of(config.warnings.begin(), config.warnings.end(), [](const Warning& w) {
      return w.message == "NodePool later is not used: the provisioner is cluster-autoscaler";
    }));
  }
}

TEST_CASE("the Cluster Autoscaler's settings say what goes unused", "[runner][auto-mode]") {
  const std::string groups =
      "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
      "managedNodeGroups: [{name: ng, instanceType: m5.large, minSize: 1, maxSize: 2}]\n---\n";
  const std::string configmap =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander}\n"
      "data: {priorities: \"10: [ng]\"}\n---\n";
  auto messages = [](const ScenarioConfig& c) {
    std::vector<std::string> out;
    for (const Warning& w : c.warnings) out.push_back(w.message);
    return out;
  };
  AutoModeRun both(groups + configmap + kCpuPod,
                   "cluster_autoscaler: {expander: priority, priorities: {5: [ng]}}\n"
                   "karpenter: {batch_idle: 2s}\n",
                   "cluster-autoscaler");
  const auto w = messages(load_scenario(both.file, catalog_root()));
  CHECK(std::count(w.begin(), w.end(),
                   "cluster_autoscaler.priorities is given: this priority expander ConfigMap is "
                   "not used") == 1);
  CHECK(std::count(w.begin(), w.end(),
                   "the provisioner is cluster-autoscaler; Karpenter's settings are ignored") == 1);

  AutoModeRun none(groups + kCpuPod, "cluster_autoscaler: {expander: priority}\n",
                   "cluster-autoscaler");
  const auto n = messages(load_scenario(none.file, catalog_root()));
  CHECK(std::count(n.begin(), n.end(),
                   "the priority expander has no priorities (cluster_autoscaler.priorities, or "
                   "the ConfigMap cluster-autoscaler-priority-expander): it keeps every option") ==
        1);
}
