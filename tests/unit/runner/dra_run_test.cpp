// DRA over a run (issue 26 part 5): a node group whose nodes run the NVIDIA DRA driver publishes
// its GPUs as devices; kube-scheduler allocates them to pods' claims; the Cluster Autoscaler
// scales such a group up for pods with claims (its template learned from a running node), and
// Karpenter, under --ignore-dra-requests, never provisions for them.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

const std::string kClaimTemplate = test::kSingleGpuClaimTemplate + "---\n";

std::string deployment(int replicas, const std::string& name = "train", int cpu = 1) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
         "}\nspec:\n  replicas: " + std::to_string(replicas) +
         "\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name +
         "}}\n    spec:\n      containers:\n        - name: c\n          resources:\n"
         "            requests: {cpu: \"" +
         std::to_string(cpu) +
         "\", memory: 4Gi}\n            claims: [{name: gpu}]\n"
         "      resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}]\n---\n";
}

const std::string kDraGroup =
    "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
    "us-east-1}\nmanagedNodeGroups:\n  - name: gpu\n    instanceType: g5.12xlarge\n"
    "    minSize: 1\n    maxSize: 3\n    desiredCapacity: 1\n"
    "    labels: {nvidia.com/dra-kubelet-plugin: \"true\"}\n---\n";

struct Sink final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::NodeLaunched) {
      ++launched;
      launch_times.push_back(e.time);
    }
    if (e.kind == EventKind::NodeReady && ready_times.empty()) ready_times.push_back(e.time);
    if (e.kind == EventKind::PodScheduled) {
      ++on_node[cluster.node(e.node).name];
      bind_times.push_back(e.time);
    }
    if (e.kind == EventKind::PodScheduled) bound_devices = claims_snapshot(cluster);
  }
  static std::vector<std::uint32_t> claims_snapshot(const Cluster& cluster) {
    std::vector<std::uint32_t> out;
    for (const auto& [key, a] : cluster.dra_claims())
      out.push_back(static_cast<std::uint32_t>(a.devices.size()));
    return out;
  }
  int launched = 0;
  std::vector<SimTime> launch_times;
  std::vector<SimTime> ready_times;  // the first node's
  std::vector<SimTime> bind_times;
  std::map<std::string, int> on_node;
  std::vector<std::uint32_t> bound_devices;
};

struct DraRun {
  DraRun(const std::string& manifests, const std::string& settings) : dir("dra-run") {
    dir.write("manifests.yaml", manifests);
    const auto file = dir.write(
        "scenario.yaml", "name: dra\nduration: 30m\nmanifests: [manifests.yaml]\n" + settings);
    config = load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&sink}});
  }
  bool warned(WarningCode code) const {
    for (const Warning& w : config.warnings)
      if (w.code == code) return true;
    return false;
  }
  int bound() const {
    int n = 0;
    for (const auto& [name, count] : sink.on_node) n += count;
    return n;
  }
  test::TempDir dir;
  ScenarioConfig config;
  Sink sink;
  RunResult result;
};

}  // namespace

// cluster-autoscaler docs/dra_support.md "Node provisioning": a pending pod with claims that no
// existing node can take but a new node of a group could gets that node; the group's new node is
// assumed to publish the devices its running node does.
TEST_CASE(
    "the Cluster Autoscaler adds one g5.12xlarge for two pods whose claims the first cannot take",
    "[runner][dra]") {
  DraRun r(kDraGroup + kClaimTemplate + deployment(6), "provisioner: cluster-autoscaler\n");
  CHECK_FALSE(r.warned(WarningCode::DraPodsIgnored));
  CHECK(r.sink.launched == 2);  // the group's first node, then one for the two pods left
  CHECK(r.bound() == 6);
  REQUIRE(r.sink.on_node.size() == 2);
  // Four pods take the first node's four GPUs, the other two the new node's.
  std::vector<int> counts;
  for (const auto& [name, count] : r.sink.on_node) counts.push_back(count);
  std::sort(counts.begin(), counts.end());
  CHECK(counts == std::vector<int>{2, 4});
  CHECK(r.sink.bound_devices == std::vector<std::uint32_t>(6, 1));
  // AWS's scale-from-zero template publishes no devices: the second node waits for a template
  // learned from the first, Ready for over a minute.
  REQUIRE(r.sink.launch_times.size() == 2);
  REQUIRE(r.sink.ready_times.size() == 1);
  CHECK(r.sink.launch_times[1] > r.sink.ready_times[0] + seconds(60));
}

// A pod whose claims its solver node cannot take moves to a template node whose devices can and
// whose room its requests still fit, as upstream's binpacking estimator runs the scheduler's
// filters (NodeResourcesFit and DynamicResources) together on each node it tries
// (estimator/binpacking_estimator.go). In a scale-up the solver packs a g5.12xlarge template node
// (48 vCPUs, 4 GPUs) with up to eleven 4-CPU pods by their requests, and the DRA pass moves those
// beyond its four GPUs; a 40-CPU pod without claims fills another's CPU. The two nodes the last
// pods need are bought in one scan; when moved pods could land beside the 40-CPU pod, the
// simulation counted one node too few and the last came 50 s later, after a scan found its pods
// still pending.
TEST_CASE("pods moved for their claims go to a template node with room for their requests",
          "[runner][dra]") {
  const std::string group =
      "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
      "us-east-1}\nmanagedNodeGroups:\n  - name: gpu\n    instanceType: g5.12xlarge\n"
      "    minSize: 1\n    maxSize: 5\n    desiredCapacity: 1\n"
      "    labels: {nvidia.com/dra-kubelet-plugin: \"true\"}\n---\n";
  const std::string plain =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: plain}\nspec:\n  replicas: 1\n"
      "  selector: {matchLabels: {app: plain}}\n  template:\n    metadata: {labels: {app: plain}}\n"
      "    spec:\n      containers:\n        - name: c\n          resources:\n"
      "            requests: {cpu: \"40\", memory: 4Gi}\n---\n";
  DraRun r(group + kClaimTemplate + deployment(14, "small", 4) + plain,
           "provisioner: cluster-autoscaler\n");
  CHECK(r.bound() == 15);
  REQUIRE(r.sink.launch_times.size() == 5);
  CHECK(r.sink.launch_times[4] - r.sink.launch_times[3] < seconds(5));  // one scan's launches
  CHECK(r.sink.bind_times.back() < at(seconds(200)));
}

TEST_CASE("with enable_dynamic_resource_allocation off the Cluster Autoscaler buys a node blind",
          "[runner][dra]") {
  // Claims unread, AWS's scale-from-zero template takes all six pods by their requests: the
  // autoscaler adds a node at its first scan, before the group's first node is even Ready.
  DraRun r(kDraGroup + kClaimTemplate + deployment(6),
           "provisioner: cluster-autoscaler\n"
           "cluster_autoscaler: {enable_dynamic_resource_allocation: false}\n");
  CHECK(r.warned(WarningCode::DraPodsIgnored));
  REQUIRE(r.sink.launch_times.size() >= 2);
  REQUIRE_FALSE(r.sink.ready_times.empty());
  CHECK(r.sink.launch_times[1] < r.sink.ready_times[0]);
}

// karpenter dra_test.go (N1) over a run: Karpenter launches nothing for pods with claims; a node
// group's node that publishes devices still takes them.
TEST_CASE("under Karpenter pods with claims run only on a node group that publishes devices",
          "[runner][dra]") {
  const std::string pool =
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n"
      "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: "
      "default}\n      requirements:\n        - {key: node.kubernetes.io/instance-type, operator: "
      "In, values: [g5.12xlarge]}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\n"
      "metadata: {name: default}\nspec: {role: test}\n---\n";
  DraRun r(pool + kDraGroup + kClaimTemplate + deployment(6), "");
  CHECK(r.warned(WarningCode::DraPodsIgnored));
  CHECK(r.sink.launched == 1);  // the node group's; Karpenter launches none
  CHECK(r.bound() == 4);
}

// A template's claim goes with its pod: when a pod of the first four ends, its GPU takes the
// next of the Job's pods (the devices freed are a capacity change that kube-scheduler acts on).
TEST_CASE("a Job's pods take a node's four GPUs in two waves as claims are freed",
          "[runner][dra]") {
  const std::string group =
      "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
      "us-east-1}\nmanagedNodeGroups:\n  - name: gpu\n    instanceType: g5.12xlarge\n"
      "    minSize: 1\n    maxSize: 1\n    desiredCapacity: 1\n"
      "    labels: {nvidia.com/dra-kubelet-plugin: \"true\"}\n---\n";
  const std::string job =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: sweep\n  annotations: "
      "{fleetsim.io/duration: 10m}\nspec:\n  parallelism: 8\n  completions: 8\n  template:\n"
      "    spec:\n      restartPolicy: Never\n      containers:\n        - name: c\n"
      "          resources: {requests: {cpu: \"1\", memory: 4Gi}}\n"
      "      resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}]\n";
  DraRun r(group + kClaimTemplate + job, "provisioner: cluster-autoscaler\n");
  CHECK(r.sink.launched == 1);
  CHECK(r.bound() == 8);
  REQUIRE(r.sink.bind_times.size() == 8);
  // The second wave binds as the first wave's pods end, ten minutes after they started.
  CHECK(r.sink.bind_times[4] >= r.sink.bind_times[0] + minutes(10));
  CHECK(r.sink.bind_times[3] - r.sink.bind_times[0] < seconds(1));
}
