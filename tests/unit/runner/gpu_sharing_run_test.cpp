// GPU sharing over a run (issue 26): a node's MIG layout or time-slicing config is applied once it
// runs, after the MIG manager's delay; only then does it advertise the sliced resources and can
// kube-scheduler bind there. Karpenter plans with EC2's count or a NodeOverlay's.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/provisioning/cluster_autoscaler/scale_up_decision.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::string pool(const std::string& type, const std::string& labels) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata:
      labels: {)" +
         labels + R"(}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [)" +
         type + R"(]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {role: test}
---
)";
}

std::string pod(const std::string& name, const std::string& resource, int count) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  annotations: {fleetsim.io/duration: 1h, karpenter.sh/do-not-disrupt: \"true\"}\n"
         "spec:\n  restartPolicy: Never\n  containers:\n    - name: c\n      resources: "
         "{requests: {cpu: 500m, memory: 4Gi, " +
         resource + ": " + std::to_string(count) + "}}\n---\n";
}

std::string overlay(const std::string& type, const std::string& capacity) {
  return "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: slices}\n"
         "spec:\n  requirements:\n    - {key: node.kubernetes.io/instance-type, operator: In, "
         "values: [" +
         type + "]}\n  capacity: {" + capacity + "}\n---\n";
}

// The device plugin's ConfigMap as the GPU Operator's time-slicing guide writes it.
std::string device_plugin(const std::string& sharing) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: time-slicing-config, namespace: "
         "gpu-operator}\ndata:\n  any: |-\n    version: v1\n    sharing:\n" +
         sharing + "---\n";
}

struct NodeSeen {
  Node at_registered, at_ready;
  SimTime registered{}, ready{};
};

struct Sink final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::NodeRegistered) {
      nodes.resize(std::max<std::size_t>(nodes.size(), e.node + 1));
      nodes[e.node].at_registered = cluster.node(e.node);
      nodes[e.node].registered = e.time;
    }
    if (e.kind == EventKind::NodeReady) {
      nodes[e.node].at_ready = cluster.node(e.node);
      nodes[e.node].ready = e.time;
    }
    if (e.kind == EventKind::PodScheduled) bound.push_back(e.time);
    if (e.kind == EventKind::PodDeleted) deleted.push_back(e);
    if (e.kind == EventKind::NodeLaunched) ++launched;
    if (e.kind == EventKind::PodReady) ++ready_pods;
    if (e.kind == EventKind::PodCrashed) {
      crashes.push_back(e);
      crash_messages.emplace_back(e.message);
    }
  }
  std::vector<NodeSeen> nodes;
  std::vector<SimTime> bound;
  std::vector<SimEvent> deleted;
  int launched = 0;
  int ready_pods = 0;
  std::vector<SimEvent> crashes;
  std::vector<std::string> crash_messages;
};

struct SharingRun {
  SharingRun(const std::string& manifests, const std::string& settings) : dir("gpu-sharing-run") {
    dir.write("manifests.yaml", manifests);
    const auto file = dir.write("scenario.yaml",
                                "name: sharing\nduration: 30m\nmanifests: [manifests.yaml]\n"
                                "karpenter: {feature_gates: {node_overlay: true}}\n" +
                                    settings);
    config = load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&sink}});
  }
  std::int64_t ready(std::string_view resource) const {
    const auto slot = config.resources.find(resource);
    REQUIRE(slot.has_value());
    return sink.nodes.at(0).at_ready.allocatable[*slot];
  }
  test::TempDir dir;
  ScenarioConfig config;
  Sink sink;
  RunResult result;
};

const std::string kTimeSliced4 =
    "      timeSlicing:\n        resources:\n          - name: nvidia.com/gpu\n"
    "            replicas: 4\n";
const std::string kOperator =
    "gpu_operator: {device_plugin_config: time-slicing-config, device_plugin_default: any}\n";

}  // namespace

TEST_CASE("a p4de under all-3g.40gb and the single strategy advertises 16 GPUs after the delay",
          "[runner]") {
  // GPU Feature Discovery's product label and the MIG manager's delay (mig_layout_delay, 2m by
  // default) on top of the node's own initialization, against the same node without a layout.
  const std::string pods = pod("a", "nvidia.com/gpu", 1);
  const SharingRun mig(pool("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb") + pods, "");
  const SharingRun whole(pool("p4de.24xlarge", "team: ml") + pods, "");
  REQUIRE(mig.sink.nodes.size() == 1);
  REQUIRE(whole.sink.nodes.size() == 1);
  const NodeSeen& n = mig.sink.nodes[0];
  // Before: Karpenter's NodeClaim (EC2's 8 GPUs), not initialized, nothing bound.
  CHECK(n.at_registered.allocatable[resource::kNvidiaGpu] == 8);
  CHECK(n.at_registered.phase == NodePhase::Registered);
  CHECK(n.ready - n.registered ==
        (whole.sink.nodes[0].ready - whole.sink.nodes[0].registered) + minutes(2));
  // After: 8 GPUs × 2 instances of 3g.40gb, and the pod binds then, not before.
  CHECK(n.at_ready.allocatable[resource::kNvidiaGpu] == 16);
  CHECK(whole.sink.nodes[0].at_ready.allocatable[resource::kNvidiaGpu] == 8);
  REQUIRE(mig.sink.bound.size() == 1);
  CHECK(mig.sink.bound[0] == n.ready);
  CHECK(n.at_ready.labels.single_valued_labels().at("nvidia.com/gpu.product") ==
        "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb");
  CHECK(mig.config.warnings.empty());
}

TEST_CASE("under the mixed strategy a p4de advertises nvidia.com/mig-3g.40gb 16", "[runner]") {
  const SharingRun r(pool("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb") +
                         pod("a", "nvidia.com/mig-3g.40gb", 1) +
                         overlay("p4de.24xlarge", "nvidia.com/mig-3g.40gb: 16"),
                     "gpu_operator: {mig_strategy: mixed}\n");
  REQUIRE(r.sink.nodes.size() == 1);
  CHECK(r.ready("nvidia.com/mig-3g.40gb") == 16);
  CHECK(r.ready("nvidia.com/gpu") == 0);
  CHECK(r.sink.nodes[0].at_ready.labels.single_valued_labels().at("nvidia.com/gpu.product") ==
        "NVIDIA-A100-SXM4-80GB");
  CHECK(r.result.pods.pending_at_end == 0);
}

TEST_CASE("time-slicing with 4 replicas gives a g6e.xlarge 4 nvidia.com/gpu", "[runner]") {
  const std::string pods = pod("a", "nvidia.com/gpu", 1) + pod("b", "nvidia.com/gpu", 1) +
                           pod("c", "nvidia.com/gpu", 1) + pod("d", "nvidia.com/gpu", 1);
  const SharingRun r(pool("g6e.xlarge", "team: ml") + pods + device_plugin(kTimeSliced4) +
                         overlay("g6e.xlarge", "nvidia.com/gpu: 4"),
                     kOperator);
  REQUIRE(r.sink.launched == 1);
  CHECK(r.ready("nvidia.com/gpu") == 4);
  CHECK(r.sink.nodes[0].at_ready.labels.single_valued_labels().at("nvidia.com/gpu.product") ==
        "NVIDIA-L40S-SHARED");
  // Time-slicing needs no MIG manager: the node is as quick as a whole-GPU one.
  CHECK(r.sink.bound.size() == 4);
  CHECK(r.result.pods.pending_at_end == 0);
  // Without the overlay Karpenter plans one GPU per node: four nodes for four pods
  // (karpenter-provider-aws#3376).
  const SharingRun blind(pool("g6e.xlarge", "team: ml") + pods + device_plugin(kTimeSliced4),
                         kOperator);
  CHECK(blind.sink.launched == 4);
}

TEST_CASE("renameByDefault advertises the replicas as nvidia.com/gpu.shared", "[runner]") {
  const SharingRun r(pool("g6e.xlarge", "nvidia.com/device-plugin.config: any") +
                         pod("a", "nvidia.com/gpu.shared", 1) +
                         overlay("g6e.xlarge", "nvidia.com/gpu.shared: 4") +
                         device_plugin("      timeSlicing:\n        renameByDefault: true\n" +
                                       kTimeSliced4.substr(19)),
                     "gpu_operator: {device_plugin_config: time-slicing-config}\n");
  REQUIRE(r.sink.nodes.size() == 1);
  CHECK(r.ready("nvidia.com/gpu.shared") == 4);
  CHECK(r.ready("nvidia.com/gpu") == 0);
  CHECK(r.sink.nodes[0].at_ready.labels.single_valued_labels().at("nvidia.com/gpu.product") ==
        "NVIDIA-L40S");
  CHECK(r.result.pods.pending_at_end == 0);
}

TEST_CASE("failRequestsGreaterThanOne fails the admission of a pod asking for 2 GPUs", "[runner]") {
  // rm.go ValidateRequest: "maximum request size for shared resources is 1; found 2". The bare
  // Pod ends Failed and nothing replaces it.
  const SharingRun r(
      pool("g6e.xlarge", "team: ml") + pod("two", "nvidia.com/gpu", 2) +
          overlay("g6e.xlarge", "nvidia.com/gpu: 4") +
          device_plugin("      timeSlicing:\n        failRequestsGreaterThanOne: true\n" +
                        kTimeSliced4.substr(19)),
      kOperator);
  REQUIRE(r.sink.deleted.size() == 1);
  CHECK(std::get<PodDeletionReason>(r.sink.deleted[0].reason) ==
        PodDeletionReason::AdmissionFailed);
  REQUIRE(r.sink.bound.size() == 1);
  CHECK(r.sink.deleted[0].time == r.sink.bound[0]);
  // Without the flag the same pod runs on two of the replicas.
  const SharingRun ok(pool("g6e.xlarge", "team: ml") + pod("two", "nvidia.com/gpu", 2) +
                          overlay("g6e.xlarge", "nvidia.com/gpu: 4") + device_plugin(kTimeSliced4),
                      kOperator);
  CHECK(ok.sink.deleted.empty());
  CHECK(ok.sink.bound.size() == 1);
}

TEST_CASE("a node group's time-sliced g6e.xlarge advertises 4 GPUs under the Cluster Autoscaler",
          "[runner]") {
  // The group's nodes carry the device plugin's config label; the Cluster Autoscaler's template
  // still counts EC2's one GPU.
  test::TempDir dir("gpu-sharing-ca");
  dir.write("manifests.yaml",
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
            "us-east-1}\nmanagedNodeGroups:\n  - name: gpu\n    instanceType: g6e.xlarge\n"
            "    minSize: 1\n    maxSize: 2\n    desiredCapacity: 1\n"
            "    labels: {nvidia.com/device-plugin.config: any}\n---\n" +
                device_plugin(kTimeSliced4));
  const auto file = dir.write("scenario.yaml",
                              "name: sharing\nduration: 10m\nprovisioner: cluster-autoscaler\n"
                              "manifests: [manifests.yaml]\n" +
                                  kOperator);
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  Sink sink;
  (void)run(config, {.event_sinks = {&sink}});
  REQUIRE(sink.nodes.size() == 1);
  CHECK(sink.nodes[0].at_registered.allocatable[resource::kNvidiaGpu] == 1);
  CHECK(sink.nodes[0].at_ready.allocatable[resource::kNvidiaGpu] == 4);
}

namespace {

std::string llm_deployment(int replicas) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n  replicas: " +
         std::to_string(replicas) +
         "\n  selector: {matchLabels: {app: llm}}\n  template:\n    metadata: {labels: {app: "
         "llm}}\n    spec:\n      containers:\n        - name: c\n          resources: "
         "{requests: {cpu: 500m, memory: 4Gi, nvidia.com/gpu: 1}}\n---\n";
}

// An 8B chat service on time-sliced L40S replicas (g6e.xlarge, 4 a GPU, the overlay telling
// Karpenter so), with the engine options given.
std::string llm_service(const std::string& engine) {
  return kOperator +
         "services:\n  - deployment: llm\n    traffic: {pattern: poisson, rps: 2, "
         "tokens: {input: 512, output: 128}}\n    model: {name: llama-3.1-8b}\n" +
         engine;
}

}  // namespace

TEST_CASE("a second vLLM replica at gpu_memory_utilization 0.9 on a time-sliced GPU crash-loops",
          "[runner]") {
  // kubelet's CrashLoopBackOff (pkg/kubelet/kuberuntime: backOff.Next with 10 s initial and
  // 300 s max; flowcontrol's Backoff doubles): restarts after 10, 20, 40, 80, 160, 300, 300 s.
  const std::string manifests = pool("g6e.xlarge", "team: ml") + llm_deployment(2) +
                                device_plugin(kTimeSliced4) +
                                overlay("g6e.xlarge", "nvidia.com/gpu: 4");
  const SharingRun r(manifests, llm_service(""));
  REQUIRE(r.sink.launched == 1);
  REQUIRE(r.sink.crashes.size() >= 8);
  const std::vector<int> waits = {10, 20, 40, 80, 160, 300, 300};
  for (std::size_t i = 0; i < waits.size(); ++i)
    CHECK(r.sink.crashes[i + 1].time - r.sink.crashes[i].time == seconds(waits[i]));
  CHECK(r.sink.crash_messages[0] ==
        "vLLM: Free memory on device (4.50/44.99 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 40.49 GiB): the GPU is time-sliced and the servers already on it hold "
        "0.9 of its memory; restart 1 in 10 s (CrashLoopBackOff)");
  REQUIRE(r.config.warnings.size() == 1);
  CHECK(r.config.warnings[0].code == WarningCode::SharedGpuMemory);
  // At 0.45 each, both start and serve.
  const SharingRun fits(manifests, llm_service("    engine: {gpu_memory_utilization: 0.45, "
                                               "max_model_len: 8192}\n"));
  CHECK(fits.sink.crashes.empty());
  CHECK(fits.sink.ready_pods == 2);
  CHECK(fits.result.sla.totals.served > 0);
}

namespace {

// The hours the run billed its one node (from launch to the 30-minute end).
double node_hours(const SharingRun& r) {
  const Node& n = r.sink.nodes.at(0).at_registered;
  return to_hours(kSimStart + minutes(30) - n.billed_from);
}

}  // namespace

TEST_CASE("report's gpu.mig counts a mixed node's 3g.40gb slices and not GPUs", "[runner]") {
  // Before, nvidia.com/gpu alone counted: the mixed node showed 0 GPU-hours. Now its 8 GPUs and
  // 16 instances are billed from launch; the bare Pod holds one instance from its binding (busy
  // while bound, as a Job's GPUs are); the node's whole cost is the profile's.
  const SharingRun r(pool("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb") +
                         pod("a", "nvidia.com/mig-3g.40gb", 1) +
                         overlay("p4de.24xlarge", "nvidia.com/mig-3g.40gb: 16"),
                     "gpu_operator: {mig_strategy: mixed}\n");
  REQUIRE(r.sink.bound.size() == 1);
  const double billed = node_hours(r);
  const double bound = to_hours(kSimStart + minutes(30) - r.sink.bound[0]);
  const GpuResult& g = r.result.gpu;
  CHECK(g.provisioned_gpu_hours == 0.0);
  CHECK(g.allocated_gpu_hours == 0.0);
  REQUIRE(g.mig.has_value());
  CHECK(g.mig->gpu_hours == Approx(8 * billed).epsilon(1e-12));
  CHECK(g.mig->usd == Approx(r.result.cost.total_usd).epsilon(1e-12));
  REQUIRE(g.mig->by_profile.size() == 1);
  const GpuResult::Slices& s = g.mig->by_profile.at("3g.40gb");
  CHECK(s.offered_slice_hours == Approx(16 * billed).epsilon(1e-12));
  CHECK(s.allocated_slice_hours == Approx(bound).epsilon(1e-12));
  CHECK(s.busy_slice_hours == Approx(bound).epsilon(1e-12));
  CHECK(s.usd_per_slice_hour == Approx(r.result.cost.total_usd / (16 * billed)).epsilon(1e-12));
  REQUIRE(s.usd_per_busy_slice_hour.has_value());
  CHECK(*s.usd_per_busy_slice_hour == Approx(r.result.cost.total_usd / bound).epsilon(1e-12));
  // The pod's share of the cost is its instance's share of the node's 16 while bound.
  CHECK(r.result.cost.by_workload.at("a") ==
        Approx(r.result.cost.total_usd / billed * bound / 16).epsilon(1e-9));
}

TEST_CASE("report's gpu.shared counts a time-sliced GPU once and its replicas apart", "[runner]") {
  // Before, the g6e.xlarge's 4 replicas counted as 4 provisioned GPUs. Now its one L40S is billed
  // in gpu.shared from launch, its replicas as devices; the bare Pods hold one each from their
  // binding (busy while bound), and each pays a quarter of the node while bound.
  const SharingRun r(pool("g6e.xlarge", "team: ml") + pod("a", "nvidia.com/gpu", 1) +
                         pod("b", "nvidia.com/gpu", 2) + device_plugin(kTimeSliced4) +
                         overlay("g6e.xlarge", "nvidia.com/gpu: 4"),
                     kOperator);
  REQUIRE(r.sink.launched == 1);
  REQUIRE(r.sink.bound.size() == 2);
  const double billed = node_hours(r);
  double held = 0;  // replica-hours the pods hold: 1 and 2 replicas
  for (std::size_t i = 0; i < 2; ++i)
    held += static_cast<double>(i + 1) * to_hours(kSimStart + minutes(30) - r.sink.bound[i]);
  const GpuResult& g = r.result.gpu;
  CHECK(g.provisioned_gpu_hours == 0.0);
  CHECK(g.allocated_gpu_hours == 0.0);
  CHECK(g.busy_gpu_hours == 0.0);
  CHECK_FALSE(g.mig.has_value());
  REQUIRE(g.shared.has_value());
  CHECK(g.shared->gpu_hours == Approx(billed).epsilon(1e-12));
  CHECK(g.shared->usd == Approx(r.result.cost.total_usd).epsilon(1e-12));
  const GpuResult::Slices& replicas = g.shared->replicas;
  CHECK(replicas.offered_slice_hours == Approx(4 * billed).epsilon(1e-12));
  CHECK(replicas.allocated_slice_hours == Approx(held).epsilon(1e-12));
  CHECK(replicas.busy_slice_hours == Approx(held).epsilon(1e-12));
  CHECK(replicas.usd_per_slice_hour ==
        Approx(r.result.cost.total_usd / (4 * billed)).epsilon(1e-12));
  const double rate = r.result.cost.total_usd / billed;
  CHECK(r.result.cost.by_workload.at("b") ==
        Approx(rate * 2 / 4 * to_hours(kSimStart + minutes(30) - r.sink.bound[1])).epsilon(1e-9));
}

TEST_CASE("under the single strategy a pod's nvidia.com/gpu on a MIG node is a slice", "[runner]") {
  const SharingRun r(
      pool("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb") + pod("a", "nvidia.com/gpu", 2),
      "");
  REQUIRE(r.sink.bound.size() == 1);
  const double bound = to_hours(kSimStart + minutes(30) - r.sink.bound[0]);
  const GpuResult& g = r.result.gpu;
  // The 16 devices are not 16 GPUs.
  CHECK(g.provisioned_gpu_hours == 0.0);
  CHECK(g.allocated_gpu_hours == 0.0);
  REQUIRE(g.mig.has_value());
  const GpuResult::Slices& s = g.mig->by_profile.at("3g.40gb");
  CHECK(s.offered_slice_hours == Approx(16 * node_hours(r)).epsilon(1e-12));
  CHECK(s.allocated_slice_hours == Approx(2 * bound).epsilon(1e-12));
}

TEST_CASE("all-balanced splits a node's cost over its profiles by compute slices", "[runner]") {
  // A100-80GB's all-balanced: 2 × 1g.10gb, 1 × 2g.20gb and 1 × 3g.40gb on each GPU (mig-parted's
  // config-default.yaml): compute 2 + 2 + 3 of 7, so 2/7, 2/7 and 3/7 of the cost.
  const SharingRun r(pool("p4de.24xlarge", "nvidia.com/mig.config: all-balanced") +
                         pod("a", "nvidia.com/mig-1g.10gb", 1) +
                         overlay("p4de.24xlarge", "nvidia.com/mig-1g.10gb: 16"),
                     "gpu_operator: {mig_strategy: mixed}\n");
  REQUIRE(r.result.gpu.mig.has_value());
  const auto& p = r.result.gpu.mig->by_profile;
  REQUIRE(p.size() == 3);
  const double total = r.result.cost.total_usd;
  CHECK(p.at("1g.10gb").usd == Approx(total * 2 / 7).epsilon(1e-12));
  CHECK(p.at("2g.20gb").usd == Approx(total * 2 / 7).epsilon(1e-12));
  CHECK(p.at("3g.40gb").usd == Approx(total * 3 / 7).epsilon(1e-12));
  CHECK(p.at("1g.10gb").offered_slice_hours == Approx(16 * node_hours(r)).epsilon(1e-12));
  CHECK(p.at("2g.20gb").offered_slice_hours == Approx(8 * node_hours(r)).epsilon(1e-12));
  CHECK(p.at("1g.10gb").allocated_slice_hours > 0.0);
  CHECK(p.at("2g.20gb").allocated_slice_hours == 0.0);
  CHECK_FALSE(p.at("2g.20gb").usd_per_busy_slice_hour.has_value());
}

TEST_CASE("a whole-GPU run has no gpu.mig or gpu.shared section", "[runner]") {
  const SharingRun r(pool("p4de.24xlarge", "team: ml") + pod("a", "nvidia.com/gpu", 1), "");
  CHECK_FALSE(r.result.gpu.mig.has_value());
  CHECK_FALSE(r.result.gpu.shared.has_value());
  CHECK(r.result.gpu.provisioned_gpu_hours == Approx(8 * node_hours(r)).epsilon(1e-12));
}

namespace {

// Four p4d.24xlarge of a static group under all-1g.5gb and the mixed strategy, labelled with the
// AWS GPU label the Cluster Autoscaler's README asks GPU groups to carry; a CPU group from zero;
// a CPU pod (which the GPU nodes' taint keeps off them) that comes at 30 minutes, when the MIG
// nodes have been up past max-node-startup-time.
RunResult unready_mig_run(const std::string& ca_settings, ScenarioConfig* out = nullptr) {
  test::TempDir dir("gpu-readiness-ca");
  dir.write("manifests.yaml",
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
            "us-east-1}\nmanagedNodeGroups:\n  - name: mig\n    instanceType: p4d.24xlarge\n"
            "    minSize: 4\n    maxSize: 4\n    desiredCapacity: 4\n"
            "    labels: {nvidia.com/mig.config: all-1g.5gb, k8s.amazonaws.com/accelerator: "
            "nvidia-a100}\n"
            "    taints: [{key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}]\n"
            "  - name: cpu\n    instanceType: m5.large\n    minSize: 0\n    maxSize: 2\n"
            "    desiredCapacity: 0\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 0\n"
            "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: "
            "web}}\n    spec:\n      containers:\n        - name: c\n          resources: "
            "{requests: {cpu: \"1\", memory: 1Gi}}\n");
  const auto file = dir.write(
      "scenario.yaml",
      "name: readiness\nduration: 45m\nprovisioner: cluster-autoscaler\n"
      "manifests: [manifests.yaml]\ngpu_operator: {mig_strategy: mixed}\n" +
          ca_settings + "events:\n  - {at: 30m, scale: {deployment: default/web, replicas: 1}}\n");
  ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  RunResult r = run(config, {});
  if (out != nullptr) *out = std::move(config);
  return r;
}

}  // namespace

TEST_CASE("MIG-only nodes the Cluster Autoscaler takes for unready stall its scale-up",
          "[runner]") {
  // autoscaler#8095: the four nodes advertise nvidia.com/mig-1g.5gb and no nvidia.com/gpu, so
  // FilterOutNodesWithUnreadyResources copies them as unready; past max-node-startup-time (15m)
  // they are Unready, 4 of 4 nodes is past --ok-total-unready-count (3) and 45%, and RunOnce
  // stops before scale-up: the CPU pod stays pending.
  const RunResult stalled = unready_mig_run("");
  CHECK(stalled.nodes.launched == 4);
  CHECK(stalled.pods.pending_at_end == 1);
  REQUIRE(stalled.pods.unschedulable.size() == 1);
  CHECK(stalled.pods.unschedulable[0].reason ==
        "the Cluster Autoscaler does nothing while the cluster is unhealthy: 4 of 4 nodes unready "
        "(more than --ok-total-unready-count 3 and --max-total-unready-percentage 45)");
  // The proposed fix (PR #9673's IsGPUResource: any nvidia.com/ resource) sees them Ready.
  const RunResult fixed =
      unready_mig_run("cluster_autoscaler: {gpu_readiness: any-nvidia-resource}\n");
  CHECK(fixed.nodes.launched == 5);
  CHECK(fixed.pods.pending_at_end == 0);
  // So does raising the limits: 4 unready nodes are within --ok-total-unready-count 4.
  const RunResult tolerant = unready_mig_run("cluster_autoscaler: {ok_total_unready_count: 4}\n");
  CHECK(tolerant.pods.pending_at_end == 0);
}

namespace {

struct ScaleUps final : EventSink {
  void on_event(const SimEvent& e, const Cluster&) override {
    if (e.kind == EventKind::ScaleUpFailed) failed.push_back(e);
    if (e.kind == EventKind::NodeLaunched) ++launched;
  }
  std::vector<SimEvent> failed;
  int launched = 0;
};

// A managed p4de group from zero under all-3g.40gb and the mixed strategy, with `extra` group
// fields (its tags, its labels), and a bare Pod asking for one 3g.40gb slice.
struct FromZero {
  FromZero(const std::string& extra, const std::string& ca_settings) : dir("gpu-from-zero") {
    dir.write("manifests.yaml",
              "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
              "us-east-1}\nmanagedNodeGroups:\n  - name: mig\n    instanceType: p4de.24xlarge\n"
              "    minSize: 0\n    maxSize: 2\n    desiredCapacity: 0\n" +
                  extra + "---\n" + pod("a", "nvidia.com/mig-3g.40gb", 1));
    const auto file = dir.write("scenario.yaml",
                                "name: from-zero\nduration: 40m\nprovisioner: cluster-autoscaler\n"
                                "manifests: [manifests.yaml]\ngpu_operator: {mig_strategy: "
                                "mixed}\n" +
                                    ca_settings);
    config = load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&sink}});
  }
  test::TempDir dir;
  ScenarioConfig config;
  ScaleUps sink;
  RunResult result;
};

const std::string kMigLabel = "    labels: {nvidia.com/mig.config: all-3g.40gb}\n";
const std::string kMigTag =
    "    tags: {k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/mig-3g.40gb: "
    "\"16\"}\n";

}  // namespace

TEST_CASE("the Cluster Autoscaler scales a MIG group from zero only with a resources tag",
          "[runner]") {
  // Its scale-from-zero template is the instance type's (8 nvidia.com/gpu, no MIG device):
  // NotTriggerScaleUp names the slice it lacks.
  const FromZero blind(kMigLabel, "");
  CHECK(blind.sink.launched == 0);
  REQUIRE(blind.result.pods.unschedulable.size() == 1);
  CHECK(blind.result.pods.unschedulable[0].reason ==
        "cluster-autoscaler: pod didn't trigger scale-up (NotTriggerScaleUp): node group mig: "
        "Insufficient nvidia.com/mig-3g.40gb");
  // The ASG tag k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/mig-3g.40gb: "16"
  // (eksctl `tags`) gives it the slices: one node, and the pod runs there.
  const FromZero tagged(kMigLabel + kMigTag, "");
  CHECK(tagged.sink.launched == 1);
  CHECK(tagged.result.pods.pending_at_end == 0);
  CHECK(tagged.sink.failed.empty());
}

TEST_CASE("a MIG node with the GPU label times its scale-up out and backs the group off",
          "[runner]") {
  // The node never has nvidia.com/gpu, so the scale-up's node never counts Ready: at
  // max-node-provision-time (15m) the request times out (ScaleUpFailed) and the group backs off,
  // though the pod runs there (kube-scheduler binds to it all the same). The fix proposed in
  // autoscaler#8095 counts the node Ready and the request completes.
  const std::string labels =
      "    labels: {nvidia.com/mig.config: all-3g.40gb, k8s.amazonaws.com/accelerator: "
      "nvidia-a100}\n";
  const FromZero stock(labels + kMigTag, "");
  CHECK(stock.result.pods.pending_at_end == 0);
  REQUIRE(stock.sink.failed.size() == 1);
  CHECK(std::get<ScaleUpFailure>(stock.sink.failed[0].reason) == ScaleUpFailure::TimedOut);
  const FromZero fixed(labels + kMigTag,
                       "cluster_autoscaler: {gpu_readiness: any-nvidia-resource}\n");
  CHECK(fixed.result.pods.pending_at_end == 0);
  CHECK(fixed.sink.failed.empty());
}

namespace {

// A p4de pool whose EC2NodeClass boots Bottlerocket with `user_data` (TOML, indented 4 spaces
// under `userData: |`, whose first line is line 19 of manifests.yaml).
std::string bottlerocket_pool(const std::string& user_data) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: br}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [p4de.24xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: br}
spec:
  role: test
  amiSelectorTerms: [{alias: bottlerocket@latest}]
  userData: |
)" + user_data +
         "---\n";
}

const std::string kMigOn =
    "    [settings.kubelet-device-plugins.nvidia]\n"
    "    device-partitioning-strategy = \"mig\"\n";

std::string profile(const std::string& value) {
  return kMigOn +
         "    [settings.kubelet-device-plugins.nvidia.mig.profile]\n    \"a100.80gb\" = \"" +
         value + "\"\n";
}

std::string product(const SharingRun& r) {
  return r.sink.nodes.at(0).at_ready.labels.single_valued_labels().at("nvidia.com/gpu.product");
}

}  // namespace

TEST_CASE("Bottlerocket's userData MIG profile partitions a p4de's GPUs", "[runner]") {
  // nvidia-migmanager (bottlerocket-core-kit sources/nvidia-migmanager, mig_profile.rs): the
  // a100.80gb value is a profile or a count ("7" 1g.10gb, "4" 1g.20gb, "3" 2g.20gb, "2" 3g.40gb,
  // "1" 7g.80gb), "1" when absent; Bottlerocket's device plugin runs with migStrategy single
  // (nvidia-k8s-device-plugin-conf), so the slices are nvidia.com/gpu.
  const std::string pods = pod("a", "nvidia.com/gpu", 1);
  const SharingRun two(bottlerocket_pool(profile("2")) + pods, "");
  CHECK(two.ready("nvidia.com/gpu") == 16);
  CHECK(product(two) == "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb");
  CHECK(two.config.warnings.empty());
  const SharingRun named(bottlerocket_pool(profile("1g.10gb")) + pods, "");
  CHECK(named.ready("nvidia.com/gpu") == 56);
  const SharingRun none(bottlerocket_pool(kMigOn) + pods, "");
  CHECK(none.ready("nvidia.com/gpu") == 8);
  CHECK(product(none) == "NVIDIA-A100-SXM4-80GB-MIG-7g.80gb");
  // MIG off: whole GPUs, no MIG manager delay.
  const SharingRun off(
      bottlerocket_pool("    [settings.kubernetes]\n    cluster-name = \"c\"\n") + pods, "");
  CHECK(off.ready("nvidia.com/gpu") == 8);
  CHECK(off.sink.nodes.at(0).at_ready.labels.single_valued_labels().count(
            "nvidia.com/gpu.product") == 0);
  REQUIRE(off.config.warnings.size() == 1);
  CHECK(off.config.warnings[0].message ==
        "Bottlerocket's settings.kubernetes.cluster-name is not modelled; ignored (only "
        "settings.kubelet-device-plugins.nvidia's device-partitioning-strategy and mig.profile "
        "are read)");
  // A profile the manager does not know for the GPU falls to serde(other): the whole GPU.
  const SharingRun odd(bottlerocket_pool(profile("4g.40gb")) + pods, "");
  CHECK(odd.ready("nvidia.com/gpu") == 8);
  REQUIRE(odd.config.warnings.size() == 1);
  CHECK(odd.config.warnings[0].where.line == 22);
  CHECK(odd.config.warnings[0].message ==
        "Bottlerocket's nvidia-migmanager does not know MIG profile \"4g.40gb\" for a100.80gb "
        "(p4de.24xlarge): it applies the whole-GPU profile (7g.80gb)");
}

TEST_CASE("an eksctl node group's bottlerocket.settings partition its p4de's GPUs", "[runner]") {
  // eksctl passes bottlerocket.settings to the nodes' settings API as they are (the same keys as
  // the TOML userData), and refuses them without amiFamily Bottlerocket (validateNodeGroupBase).
  const auto group = [](const std::string& family, const std::string& settings) {
    return "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
           "us-east-1}\nmanagedNodeGroups:\n  - name: mig\n    instanceType: p4de.24xlarge\n"
           "    minSize: 1\n    maxSize: 1\n    desiredCapacity: 1\n    amiFamily: " +
           family +
           "\n    bottlerocket:\n      settings:\n        kubelet-device-plugins:\n"
           "          nvidia:\n            device-partitioning-strategy: mig\n" +
           settings;
  };
  const auto load = [](test::TempDir& dir, const std::string& manifests) {
    dir.write("manifests.yaml", manifests);
    const auto file = dir.write("scenario.yaml",
                                "name: sharing\nduration: 10m\nprovisioner: cluster-autoscaler\n"
                                "manifests: [manifests.yaml]\n");
    return load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  };
  const std::string profile = "            mig: {profile: {a100.80gb: \"2\"}}\n";
  test::TempDir dir("bottlerocket-eksctl");
  const ScenarioConfig config = load(dir, group("Bottlerocket", profile));
  CHECK(config.warnings.empty());
  Sink sink;
  (void)run(config, {.event_sinks = {&sink}});
  REQUIRE(sink.nodes.size() == 1);
  CHECK(sink.nodes[0].at_registered.allocatable[resource::kNvidiaGpu] == 8);
  CHECK(sink.nodes[0].at_ready.allocatable[resource::kNvidiaGpu] == 16);
  CHECK(sink.nodes[0].at_ready.labels.single_valued_labels().at("nvidia.com/gpu.product") ==
        "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb");
  test::TempDir other("bottlerocket-eksctl-al2023");
  try {
    (void)load(other, group("AmazonLinux2023", profile));
    FAIL("loaded");
  } catch (const ConfigError& e) {
    CHECK(e.where().line == 12);  // the bottlerocket mapping
    CHECK(std::string(e.what()).find("bottlerocket config can only be used with amiFamily "
                                     "\"Bottlerocket\" but found \"AmazonLinux2023\"") !=
          std::string::npos);
  }
}

TEST_CASE("Bottlerocket userData the settings API refuses fails at its line", "[runner]") {
  test::TempDir dir("bottlerocket-bad");
  auto error = [&](const std::string& user_data) {
    dir.write("manifests.yaml", bottlerocket_pool(user_data));
    const auto file =
        dir.write("scenario.yaml", "name: br\nduration: 10m\nmanifests: [manifests.yaml]\n");
    return test::config_error([&] {
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    });
  };
  const std::string manifest = (dir.path() / "manifests.yaml").string();
  CHECK(error(profile("3g")) ==
        manifest +
            ":22:5: userData: settings.kubelet-device-plugins.nvidia.mig.profile: \"a100.80gb\" = "
            "\"3g\" is not a GPU model (\"a100.80gb\") and a MIG profile (\"3g.40gb\") or a count "
            "of partitions (\"2\"), as Bottlerocket's settings API requires");
  CHECK(error(kMigOn + "    not toml\n") ==
        manifest + ":21:5: userData: Bottlerocket userData is TOML: expected key = value");
  // The GPU Operator's label beside Bottlerocket's settings: two MIG managers.
  std::string labelled = bottlerocket_pool(profile("2"));
  labelled.replace(
      labelled.find("  template:\n"), 12,
      "  template:\n    metadata:\n      labels: {nvidia.com/mig.config: all-3g.40gb}\n");
  dir.write("manifests.yaml", labelled);
  const auto file =
      dir.write("scenario.yaml", "name: br\nduration: 10m\nmanifests: [manifests.yaml]\n");
  const std::string e = test::config_error([&] {
    load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  });
  CHECK(e.find("NodePool gpu has the GPU Operator's nvidia.com/mig.config label, but its "
               "EC2NodeClass br partitions its GPUs with Bottlerocket's MIG settings") !=
        std::string::npos);
}
