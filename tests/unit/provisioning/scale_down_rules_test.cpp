// Cluster Autoscaler scale-down rules (utilization, drainability), from upstream's simulator tests.
#include "fleetsim/provisioning/cluster_autoscaler/scale_down_rules.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

const Catalog& aws_catalog() {
  static const Catalog catalog =
      load_catalog(std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog/aws/us-east-1");
  return catalog;
}

std::uint32_t type_index(std::string_view name) {
  const std::optional<std::size_t> i = aws_catalog().index_of(name);
  REQUIRE(i);
  return static_cast<std::uint32_t>(*i);
}

// BuildTestPod(name, cpu, mem): requests in millicores and bytes (pods = 1).
Resources test_pod(std::int64_t cpu_millis, std::int64_t memory_bytes, std::int64_t gpus = 0) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_bytes;
  r[resource::kPods] = 1;
  r[resource::kNvidiaGpu] = gpus;
  return r;
}

// BuildTestNode(name, cpu, mem) (with AddGpusToNode): allocatable in millicores and bytes.
Resources test_node(std::int64_t cpu_millis, std::int64_t memory_bytes, std::int64_t gpus = 0) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_bytes;
  r[resource::kPods] = 110;
  r[resource::kNvidiaGpu] = gpus;
  return r;
}

const SimTime kNow = at(hours(2));  // drain_test.go's testTime

struct Rig {
  Cluster cluster;
  SpecStore specs;
  std::deque<Labels> labels;

  NodeId node(std::string_view type, const Resources& allocatable,
              const Resources& daemon_overhead = {}) {
    Node n;
    n.name = "node-" + std::to_string(cluster.nodes().size());
    n.owner = NodeGroupOwner{.name = "ng"};
    n.type = type_index(type);
    n.instance_type = std::string(type);
    n.zone = "us-east-1a";
    n.phase = NodePhase::Initialized;
    n.initialized = true;
    n.allocatable = allocatable;
    n.daemon_overhead = daemon_overhead;
    return cluster.add_node(std::move(n));
  }

  // A Ready pod bound to `node`.
  PodId pod(NodeId node, const Resources& requests, SimTime created = kSimStart,
            std::string ns = "default", std::string safe_to_evict = "",
            Labels pod_labels = {{"app", "web"}}) {
    PodSpec spec;
    spec.requests = requests;
    spec.safe_to_evict = std::move(safe_to_evict);
    labels.push_back(std::move(pod_labels));
    Pod p{.name = "pod-" + std::to_string(cluster.next_pod_id()),
          .spec = specs.add(std::move(spec)),
          .labels = &labels.back(),
          .namespace_name = std::move(ns),
          .uid = "uid-" + std::to_string(cluster.next_pod_id()),
          .created = created};
    const PodId id = cluster.add_pod(std::move(p));
    cluster.bind(id, node, created);
    cluster.pod_ready(id, created);
    return id;
  }

  std::optional<std::string> blocks(PodId pod, WorkloadKind kind, const PodDisruptionBudgets& pdbs,
                                    const ClusterAutoscalerSettings& settings = {}) const {
    return blocks_scale_down(cluster.pod(pod), kind, pdbs, settings, kNow);
  }
};

}  // namespace

// info_test.go: TestCalculate, node 2000m / 2000000 bytes.
TEST_CASE("utilization is the larger of the CPU and memory shares (TestCalculate)",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  rig.pod(n, test_pod(100, 200000));
  rig.pod(n, test_pod(100, 200000));
  rig.pod(n, test_pod(0, 0));  // p2: no requests
  // cpu 200/2000 = 0.1, memory 400000/2000000 = 0.2.
  const NodeUtilization u = node_utilization(rig.cluster.node(n), aws_catalog());
  CHECK(u.value == Approx(0.2));
  CHECK_FALSE(u.gpu);
}

// TestCalculate with a DaemonSet pod and ignoreDaemonSetsUtilization false (the default): it
// counts. fleetsim keeps DaemonSet pods as the node's daemon_overhead.
TEST_CASE("DaemonSet overhead counts toward utilization",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000), test_pod(100, 200000));
  rig.pod(n, test_pod(100, 200000));
  rig.pod(n, test_pod(0, 0));
  CHECK(node_utilization(rig.cluster.node(n), aws_catalog()).value == Approx(2.0 / 10));

  // eligibility_test.go: TestFilterOutUnremovable, node 1000m: a 100m pod with a 500m DaemonSet
  // pod is at 0.6, above the 0.5 threshold.
  const NodeId small =
      rig.node("m5.large", test_node(1000, std::int64_t{8} << 30), test_pod(500, 0));
  rig.pod(small, test_pod(100, 0));
  CHECK(node_utilization(rig.cluster.node(small), aws_catalog()).value == Approx(0.6));
}

TEST_CASE("pods the autoscaler placed this loop add to utilization",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  rig.pod(n, test_pod(200, 0));
  CHECK(node_utilization(rig.cluster.node(n), aws_catalog()).value == Approx(0.1));
  CHECK(node_utilization(rig.cluster.node(n), aws_catalog(), test_pod(800, 500000)).value ==
        Approx(0.5));
}

// TestCalculate: a GPU node (1 GPU) with a 1-GPU pod is at 1.0 whatever its CPU and memory; a
// GPU node whose GPUs are not advertised is at 0 (upstream: "Node with Unready GPU").
TEST_CASE("a GPU node is judged on its GPU requests alone (TestCalculate)",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId gpu = rig.node("g5.xlarge", test_node(2000, 2000000, 1));
  rig.pod(gpu, test_pod(100, 200000));
  rig.pod(gpu, test_pod(100, 200000));
  rig.pod(gpu, test_pod(100, 200000, 1));
  NodeUtilization u = node_utilization(rig.cluster.node(gpu), aws_catalog());
  CHECK(u.value == 1.0);
  CHECK(u.gpu);

  // CPU and memory nearly full, no GPU requested: 0.
  const NodeId busy = rig.node("g5.xlarge", test_node(2000, 2000000, 1));
  rig.pod(busy, test_pod(1900, 1900000));
  u = node_utilization(rig.cluster.node(busy), aws_catalog());
  CHECK(u.value == 0.0);
  CHECK(u.gpu);

  // Half of 4 GPUs, from bound pods and the autoscaler's placements together.
  const NodeId four = rig.node("g5.xlarge", test_node(2000, 2000000, 4));
  rig.pod(four, test_pod(100, 0, 1));
  CHECK(node_utilization(rig.cluster.node(four), aws_catalog(), test_pod(0, 0, 1)).value == 0.5);

  // The device plugin has not advertised the GPU: allocatable 0, utilization 0, still a GPU node.
  const NodeId unready = rig.node("g5.xlarge", test_node(2000, 2000000, 0));
  rig.pod(unready, test_pod(100, 200000));
  rig.pod(unready, test_pod(100, 200000));
  u = node_utilization(rig.cluster.node(unready), aws_catalog());
  CHECK(u.value == 0.0);
  CHECK(u.gpu);

  // Neuron devices are not among utils/gpu's GPUVendorResourceNames: an inf2.xlarge is judged
  // on CPU and memory.
  Resources inferentia = test_node(4000, std::int64_t{16} << 30);
  inferentia[resource::kNeuron] = 1;
  const NodeId inf = rig.node("inf2.xlarge", inferentia);
  rig.pod(inf, test_pod(3000, std::int64_t{1} << 30));
  u = node_utilization(rig.cluster.node(inf), aws_catalog());
  CHECK(u.value == 0.75);
  CHECK_FALSE(u.gpu);
}

namespace {

PodDisruptionBudgetSpec pdb(std::string name, std::string ns, IntOrPercent max_unavailable,
                            Labels match = {{"app", "web"}}) {
  return {.name = std::move(name),
          .namespace_name = std::move(ns),
          .max_unavailable = max_unavailable,
          .selector = LabelSelector{.match_labels = std::move(match)}};
}

const std::string kNotReplicated = "pod has no controller (NotReplicated)";
const std::string kKubeSystem =
    "kube-system pod without a PodDisruptionBudget (UnmovableKubeSystemPod)";
const std::string kNotSafe = "pod has safe-to-evict: \"false\"";

}  // namespace

// drain_test.go: TestGetPodsToMove.
TEST_CASE("a bare pod blocks scale-down, a controller's pod moves (TestGetPodsToMove)",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  const PodId p = rig.pod(n, test_pod(100, 0));
  const PodDisruptionBudgets none(rig.cluster, {});
  // "Unreplicated pod"
  CHECK(rig.blocks(p, WorkloadKind::Pod, none) == kNotReplicated);
  // "Replicated pod", "Job-managed pod"
  CHECK(rig.blocks(p, WorkloadKind::Deployment, none) == std::nullopt);
  CHECK(rig.blocks(p, WorkloadKind::Job, none) == std::nullopt);
}

TEST_CASE("a kube-system pod without a PDB blocks for its first hour (TestGetPodsToMove)",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  const PodDisruptionBudgets none(rig.cluster, {});
  auto system_pod = [&](SimDuration age) {
    return rig.pod(n, test_pod(100, 0), kNow - age, "kube-system");
  };
  CHECK(kBlockingSystemPodTimeout == hours(1));
  // "Kube-system no pdb system pods blocking": created 59m before.
  CHECK(rig.blocks(system_pod(minutes(59)), WorkloadKind::Deployment, none) == kKubeSystem);
  // Exactly 1h: the timeout has not passed (drainTime.After(created + 1h) is false).
  CHECK(rig.blocks(system_pod(hours(1)), WorkloadKind::Deployment, none) == kKubeSystem);
  // "Kube-system no pdb system pods allowing": created 61m before.
  CHECK(rig.blocks(system_pod(minutes(61)), WorkloadKind::Deployment, none) == std::nullopt);
  // --skip-nodes-with-system-pods=false drops the rule.
  ClusterAutoscalerSettings no_skip;
  no_skip.skip_nodes_with_system_pods = false;
  CHECK(rig.blocks(system_pod(minutes(1)), WorkloadKind::Deployment, none, no_skip) ==
        std::nullopt);
  // A default-namespace pod of the same age moves.
  const PodId web = rig.pod(n, test_pod(100, 0), kNow - minutes(1));
  CHECK(rig.blocks(web, WorkloadKind::Deployment, none) == std::nullopt);
}

TEST_CASE("only a PDB of its own namespace that selects it frees a kube-system pod",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  const PodId p = rig.pod(n, test_pod(100, 0), kNow - minutes(1), "kube-system");
  const IntOrPercent one{.value = 1};
  // "kube-system PDB with matching kube-system pod"
  const PodDisruptionBudgets matching(rig.cluster, {pdb("kube-system-pdb", "kube-system", one)});
  CHECK(rig.blocks(p, WorkloadKind::Deployment, matching) == std::nullopt);
  // "kube-system PDB with non-matching kube-system pod"
  const PodDisruptionBudgets other_labels(
      rig.cluster, {pdb("kube-system-fake-pdb", "kube-system", one, {{"app", "other"}})});
  CHECK(rig.blocks(p, WorkloadKind::Deployment, other_labels) == kKubeSystem);
  // "default namespace PDB with matching labels kube-system pod"
  const PodDisruptionBudgets other_namespace(rig.cluster, {pdb("default-pdb", "default", one)});
  CHECK(rig.blocks(p, WorkloadKind::Deployment, other_namespace) == kKubeSystem);
}

TEST_CASE("a PDB that allows no disruption blocks, one that allows one does not",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  const PodId p = rig.pod(n, test_pod(100, 0));
  // "Pdb blocking": maxUnavailable 0 leaves disruptionsAllowed at 0.
  const PodDisruptionBudgets restrictive(rig.cluster,
                                         {pdb("foobar", "default", IntOrPercent{.value = 0})});
  CHECK(rig.blocks(p, WorkloadKind::Deployment, restrictive) ==
        "PodDisruptionBudget default/foobar allows no eviction");
  // "Pdb allowing"
  const PodDisruptionBudgets permissive(rig.cluster,
                                        {pdb("foobar", "default", IntOrPercent{.value = 1})});
  CHECK(rig.blocks(p, WorkloadKind::Deployment, permissive) == std::nullopt);
  // "empty PDB with RC-managed pod": a PDB without a selector selects nothing.
  const PodDisruptionBudgets empty(
      rig.cluster, {PodDisruptionBudgetSpec{.name = "empty", .max_unavailable = IntOrPercent{}}});
  CHECK(rig.blocks(p, WorkloadKind::Deployment, empty) == std::nullopt);
}

// safe-to-evict "true" lets any pod go ("pod with PodSafeToEvict annotation", "kube-system pod
// with PodSafeToEvict annotation"), even an unreplicated one or one under a blocking PDB; "false"
// blocks a pod that would otherwise move.
TEST_CASE("safe-to-evict \"true\" overrides the blocking rules, \"false\" blocks",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  const PodDisruptionBudgets none(rig.cluster, {});
  const SimTime young = kNow - minutes(1);
  const PodId safe = rig.pod(n, test_pod(100, 0), young, "default", "true", {{"app", "safe"}});
  CHECK(rig.blocks(safe, WorkloadKind::Pod, none) == std::nullopt);
  const PodId safe_system =
      rig.pod(n, test_pod(100, 0), young, "kube-system", "true", {{"app", "safe"}});
  CHECK(rig.blocks(safe_system, WorkloadKind::Pod, none) == std::nullopt);
  const PodDisruptionBudgets restrictive(
      rig.cluster, {pdb("safe", "default", IntOrPercent{.value = 0}, {{"app", "safe"}})});
  REQUIRE(restrictive.blocking(rig.cluster.pod(safe)));
  CHECK(rig.blocks(safe, WorkloadKind::Deployment, restrictive) == std::nullopt);

  const PodId unsafe = rig.pod(n, test_pod(100, 0), young, "default", "false", {{"app", "unsafe"}});
  CHECK(rig.blocks(unsafe, WorkloadKind::Deployment, none) == kNotSafe);
  CHECK(rig.blocks(unsafe, WorkloadKind::Job, none) == kNotSafe);
  // Any other value is no such annotation here (on-completion is not modelled).
  const PodId other =
      rig.pod(n, test_pod(100, 0), young, "default", "on-completion", {{"app", "other"}});
  CHECK(rig.blocks(other, WorkloadKind::Deployment, none) == std::nullopt);
}

// rules.go: Default: the first blocking rule in order decides the reason: replicated, system,
// not-safe-to-evict, then PDB.
TEST_CASE("the first blocking rule names the reason",
          "[provisioning][cluster-autoscaler][scale-down]") {
  Rig rig;
  const NodeId n = rig.node("m5.large", test_node(2000, 2000000));
  const PodDisruptionBudgets none(rig.cluster, {});
  const SimTime young = kNow - minutes(1);
  const PodId system_unsafe =
      rig.pod(n, test_pod(100, 0), young, "kube-system", "false", {{"app", "x"}});
  CHECK(rig.blocks(system_unsafe, WorkloadKind::Pod, none) == kNotReplicated);
  CHECK(rig.blocks(system_unsafe, WorkloadKind::Deployment, none) == kKubeSystem);
  const PodId unsafe = rig.pod(n, test_pod(100, 0), young, "default", "false", {{"app", "y"}});
  const PodDisruptionBudgets restrictive(
      rig.cluster, {pdb("y", "default", IntOrPercent{.value = 0}, {{"app", "y"}})});
  CHECK(rig.blocks(unsafe, WorkloadKind::Deployment, restrictive) == kNotSafe);
}
