// The Cluster Autoscaler over whole runs (issue 11): scale-up through the expanders, bounded by
// max size and max-nodes-total, backing off a group that fails; scale-down of underutilized GPU
// nodes after exactly the unneeded time, held by safe-to-evict and the delay after an add; the
// Auto Scaling groups' desired capacity, zones and allocation strategies.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/provisioning/cluster_autoscaler/scale_up_decision.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct Recorded {
  SimTime time;
  EventKind kind;
  std::string node_group;  // the node's, or the scale-up's first grown group
  std::string node;
  std::string instance_type;
  std::string zone;
  EventReason reason;
  std::string message;
  std::vector<std::pair<std::string, std::int64_t>> grown;    // scale_up
  std::vector<std::pair<std::string, std::int64_t>> options;  // scale_up: group, nodes
};

struct Recorder final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    Recorded r{
        .time = e.time, .kind = e.kind, .reason = e.reason, .message = std::string(e.message)};
    if (e.kind == EventKind::ScaleUp) {
      for (const auto& o : e.scale_up->grown) r.grown.emplace_back(o.node_group, o.nodes);
      for (const auto& o : e.scale_up->options) r.options.emplace_back(o.node_group, o.nodes);
      r.node_group = r.grown.front().first;
    } else if (e.kind == EventKind::ScaleUpFailed) {
      r.node_group = e.node_group;
    } else if (subject_of(e.kind) == EventSubject::Node && e.node != kNoNode) {
      const Node& n = cluster.node(e.node);
      r.node_group = n.node_group() != nullptr ? n.owner_name() : "";
      r.node = n.name;
      r.instance_type = n.instance_type;
      r.zone = n.zone;
    } else {
      return;
    }
    events.push_back(std::move(r));
  }
  std::vector<Recorded> of(EventKind kind, std::string_view group = {}) const {
    std::vector<Recorded> out;
    for (const Recorded& r : events)
      if (r.kind == kind && (group.empty() || r.node_group == group)) out.push_back(r);
    return out;
  }
  std::vector<Recorded> events;
};

// A managed node group of one instance type.
std::string group(const std::string& name, const std::string& type, int min, int max, int desired,
                  const std::string& extra = "") {
  return "  - name: " + name + "\n    instanceType: " + type +
         "\n    minSize: " + std::to_string(min) + "\n    maxSize: " + std::to_string(max) +
         "\n    desiredCapacity: " + std::to_string(desired) + "\n" + extra;
}

const std::string kGpuTaint =
    "    taints: [{key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}]\n";

std::string cluster(const std::string& groups) {
  return "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
         "managedNodeGroups:\n" +
         groups + "---\n";
}

// A Deployment of `replicas` pods each asking for `gpus` GPUs (and little else).
std::string gpu_deployment(const std::string& name, int replicas, int gpus,
                           const std::string& annotations = "") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
         "}\nspec:\n  replicas: " + std::to_string(replicas) +
         "\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata:\n"
         "      labels: {app: " +
         name + "}\n" + annotations +
         "    spec:\n      tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n"
         "      containers:\n        - name: c\n          resources: {requests: {cpu: 500m, "
         "memory: 1Gi, nvidia.com/gpu: " +
         std::to_string(gpus) + "}}\n---\n";
}

// A Job of `pods` pods of `cpu` CPUs and `memory` each, running `duration`.
std::string job(const std::string& name, int pods, const std::string& cpu,
                const std::string& memory, const std::string& duration = "1h") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name +
         "}\nspec:\n  parallelism: " + std::to_string(pods) +
         "\n  completions: " + std::to_string(pods) +
         "\n  template:\n    metadata:\n      annotations: {fleetsim.io/duration: " + duration +
         "}\n    spec:\n      restartPolicy: Never\n      tolerations: [{key: nvidia.com/gpu, "
         "operator: Exists}]\n      containers:\n        - name: c\n          resources: "
         "{requests: {cpu: \"" +
         cpu + "\", memory: " + memory + "}}\n---\n";
}

// Two GPU groups, gpu-a preferred by the priority expander's ConfigMap, and one GPU pod.
const std::string kPreferGpuA =
    cluster(group("gpu-a", "g5.xlarge", 0, 2, 0, kGpuTaint) +
            group("gpu-b", "g4dn.xlarge", 0, 2, 0, kGpuTaint)) +
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander}\n"
    "data:\n  priorities: \"50: [gpu-a]\\n10: [gpu-b]\"\n---\n" +
    gpu_deployment("llm", 1, 1);

struct CaRun {
  CaRun(const std::string& manifests, const std::string& scenario_rest = "",
        const std::string& duration = "2h")
      : dir("cluster-autoscaler") {
    dir.write("manifests.yaml", manifests);
    const auto file = dir.write("scenario.yaml", "name: ca\nduration: " + duration +
                                                     "\nprovisioner: cluster-autoscaler\n"
                                                     "manifests: [manifests.yaml]\n" +
                                                     scenario_rest);
    const ScenarioConfig config =
        load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&events}});
  }
  test::TempDir dir;
  Recorder events;
  RunResult result;
};

}  // namespace

TEST_CASE("node groups start at their desired capacity, spread over their zones",
          "[runner][cluster-autoscaler]") {
  const CaRun r(cluster(group("cpu", "m5.large", 1, 5, 3,
                              "    availabilityZones: [us-east-1a, us-east-1b]\n")),
                "", "10m");
  const auto launched = r.events.of(EventKind::NodeLaunched, "cpu");
  REQUIRE(launched.size() == 3);
  // EC2 Auto Scaling balances the zones: a, b, then a again.
  CHECK(launched[0].zone == "us-east-1a");
  CHECK(launched[1].zone == "us-east-1b");
  CHECK(launched[2].zone == "us-east-1a");
  CHECK(r.events.of(EventKind::ScaleUp).empty());
  REQUIRE(r.result.cost.by_nodegroup);
  CHECK(r.result.cost.by_nodegroup->count("cpu") == 1);
}

TEST_CASE("a spot group launches its cheapest type, an on-demand one its first",
          "[runner][cluster-autoscaler]") {
  const std::string zones = "    availabilityZones: [us-east-1a]\n";
  const CaRun r(cluster("  - name: spot\n    instanceTypes: [g5.2xlarge, g5.xlarge]\n"
                        "    spot: true\n    minSize: 1\n    maxSize: 1\n" +
                        zones +
                        "  - name: od\n    instanceTypes: [g5.2xlarge, g5.xlarge]\n"
                        "    minSize: 1\n    maxSize: 1\n" +
                        zones),
                "", "10m");
  const auto spot = r.events.of(EventKind::NodeLaunched, "spot");
  REQUIRE(spot.size() == 1);
  // Spot in us-east-1a: g5.xlarge 0.4177 $/h against g5.2xlarge 0.5609.
  CHECK(spot[0].instance_type == "g5.xlarge");
  const auto od = r.events.of(EventKind::NodeLaunched, "od");
  REQUIRE(od.size() == 1);
  CHECK(od[0].instance_type == "g5.2xlarge");  // prioritized: the group's order
}

// expander/waste/waste_test.go TestLeastWaste, in a run: a pod of 2 CPUs and 4 GiB wastes
// 0.5 + 0.5 of a c5.xlarge (4 CPUs, 8 GiB), 0.5 + 0.75 of an m5.xlarge and 0.5 + 0.875 of an
// r5.xlarge: least-waste grows the c5 group.
TEST_CASE("least-waste grows the group with the least idle CPU and memory",
          "[runner][cluster-autoscaler]") {
  const CaRun r(cluster(group("m5", "m5.xlarge", 0, 3, 0) + group("c5", "c5.xlarge", 0, 3, 0) +
                        group("r5", "r5.xlarge", 0, 3, 0)) +
                    job("work", 1, "2", "4Gi"),
                // Lockstep phases: the first scan at exactly one scan interval.
                "phase_offsets: zero\n", "30m");
  const auto ups = r.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 1);
  CHECK(ups[0].grown == std::vector<std::pair<std::string, std::int64_t>>{{"c5", 1}});
  // The pod was 2 s old at the first scan after it; the scan runs every 10 s.
  CHECK(ups[0].time == kSimStart + seconds(10));
}

// expander/priority/priority_test.go: the highest priority whose expression matches the group's
// name anywhere wins; the priorities come from the ConfigMap.
TEST_CASE("the priority expander reads its ConfigMap", "[runner][cluster-autoscaler]") {
  const std::string configmap =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander, "
      "namespace: kube-system}\ndata:\n  priorities: |-\n    10:\n      - .*-r5\n    50:\n"
      "      - .*-m5\n---\n";
  const CaRun r(
      cluster(group("ng-m5", "m5.xlarge", 0, 3, 0) + group("ng-c5", "c5.xlarge", 0, 3, 0) +
              group("ng-r5", "r5.xlarge", 0, 3, 0)) +
          configmap + job("work", 1, "2", "4Gi"),
      "cluster_autoscaler: {expander: \"priority,least-waste\"}\n", "30m");
  const auto ups = r.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 1);
  CHECK(ups[0].node_group == "ng-m5");
}

TEST_CASE("most-pods and least-nodes", "[runner][cluster-autoscaler]") {
  // Four pods of 3 CPUs: an m5.4xlarge (16 CPUs) takes all four on one node, an m5.xlarge
  // group of max 2 only two. most-pods and least-nodes both pick the m5.4xlarge group.
  const std::string groups =
      group("small", "m5.xlarge", 0, 2, 0) + group("large", "m5.4xlarge", 0, 2, 0);
  for (const char* expander : {"most-pods", "least-nodes"}) {
    INFO(expander);
    const CaRun r(cluster(groups) + job("work", 4, "3", "1Gi"),
                  std::string("cluster_autoscaler: {expander: ") + expander + "}\n", "30m");
    const auto ups = r.events.of(EventKind::ScaleUp);
    REQUIRE(ups.size() == 1);
    CHECK(ups[0].grown == std::vector<std::pair<std::string, std::int64_t>>{{"large", 1}});
  }
}

TEST_CASE("a scale-up stops at the group's max size and at max-nodes-total",
          "[runner][cluster-autoscaler]") {
  // Five pods that each fill an m5.xlarge: the group may grow to 2 only.
  const std::string groups = group("cpu", "m5.xlarge", 0, 2, 0);
  const CaRun by_max(cluster(groups) + job("work", 5, "3", "1Gi"), "", "30m");
  REQUIRE(by_max.events.of(EventKind::ScaleUp).size() == 1);
  CHECK(by_max.events.of(EventKind::ScaleUp)[0].grown ==
        std::vector<std::pair<std::string, std::int64_t>>{{"cpu", 2}});
  CHECK(by_max.events.of(EventKind::NodeLaunched).size() == 2);

  // core/scaleup/orchestrator TestScaleUpCapToMaxTotalNodesLimit: with one node running and
  // max-nodes-total 3, a scale-up adds 2.
  const CaRun by_total(
      cluster(group("system", "m5.large", 1, 1, 1) + group("cpu", "m5.xlarge", 0, 10, 0)) +
          job("work", 5, "3", "1Gi"),
      "cluster_autoscaler: {max_nodes_total: 3}\n", "30m");
  const auto ups = by_total.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 1);
  CHECK(ups[0].grown == std::vector<std::pair<std::string, std::int64_t>>{{"cpu", 2}});
  CHECK(by_total.events.of(EventKind::NodeLaunched).size() == 3);
}

// Issue 25, item 3: a pod no group's scale-up helps is told each group's reason, as upstream's
// NotTriggerScaleUp event lists them ("pod didn't trigger scale-up: 1 node(s) didn't match Pod's
// node affinity/selector, 1 Insufficient nvidia.com/gpu, 1 max node group size reached"); it was
// "no node group can host it" whatever the cause. The group whose template is too small is
// core/scaleup/orchestrator TestScaleUpNoHelp's situation.
TEST_CASE("a pod no scale-up helps names each node group's reason",
          "[runner][cluster-autoscaler]") {
  const std::string pinned =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n  replicas: 1\n"
      "  selector: {matchLabels: {app: llm}}\n  template:\n    metadata: {labels: {app: llm}}\n"
      "    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g5.2xlarge}\n"
      "      tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n      containers:\n"
      "        - name: c\n          resources: {requests: {cpu: 500m, memory: 1Gi, "
      "nvidia.com/gpu: 2}}\n---\n";
  const CaRun r(
      cluster(group("cpu", "m5.xlarge", 0, 2, 0) + group("gpu", "g5.2xlarge", 0, 2, 0, kGpuTaint) +
              group("full", "g5.2xlarge", 0, 0, 0) +
              group("batch", "g5.2xlarge", 0, 2, 0,
                    "    taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n")) +
          pinned,
      "", "10m");
  REQUIRE(r.result.pods.unschedulable.size() == 1);
  CHECK(r.result.pods.unschedulable[0].reason ==
        "cluster-autoscaler: pod didn't trigger scale-up (NotTriggerScaleUp): node group cpu: "
        "nodeSelector node.kubernetes.io/instance-type=g5.2xlarge is outside the node group's "
        "node.kubernetes.io/instance-type In [m5.xlarge]; node group gpu: Insufficient "
        "nvidia.com/gpu; node group full: max node group size reached; node group batch: did not "
        "tolerate dedicated=batch:NoSchedule");
  CHECK(r.events.of(EventKind::ScaleUp).empty());
}

TEST_CASE("a group whose launch finds no capacity backs off and another is chosen",
          "[runner][cluster-autoscaler]") {
  // The priority expander prefers gpu-a, but g5.xlarge on-demand has no capacity anywhere.
  const CaRun r(kPreferGpuA,
                "cluster_autoscaler: {expander: priority}\nevents:\n  - {at: 0s, capacity: "
                "{instance_type: g5.xlarge, capacity_type: on-demand, count: 0}}\n",
                "30m");
  const auto ups = r.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 2);
  CHECK(ups[0].node_group == "gpu-a");
  const auto failed = r.events.of(EventKind::ScaleUpFailed);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].node_group == "gpu-a");
  CHECK(failed[0].reason == EventReason{ScaleUpFailure::NoCapacity});
  // The next scan sees the failed launch (the ASG's failed scaling activity), backs gpu-a off
  // for 5 minutes and, in the same loop, grows gpu-b.
  CHECK(failed[0].time == ups[0].time + seconds(10));
  CHECK(ups[1].node_group == "gpu-b");
  CHECK(ups[1].time == failed[0].time);
  CHECK(r.events.of(EventKind::NodeLaunched, "gpu-a").empty());
  CHECK(r.events.of(EventKind::NodeLaunched, "gpu-b").size() == 1);
}

namespace {

// Two GPU groups: `big` holds the pods (a g5.48xlarge, 8 GPUs and 192 CPUs), `spare` a
// g4dn.12xlarge (4 GPUs) kept by its min size, where the pods can move. kube-scheduler puts
// every pod on `big` first: `spare` carries a PreferNoSchedule taint the pods do not tolerate,
// which outweighs spreading a Deployment's pods (TaintToleration's weight is 3, spreading's 2).
std::string two_gpu_nodes() {
  return cluster(group("big", "g5.48xlarge", 0, 1, 1, kGpuTaint) +
                 group("spare", "g4dn.12xlarge", 1, 1, 1,
                       "    taints: [{key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}, "
                       "{key: spare, effect: PreferNoSchedule}]\n"));
}

}  // namespace

TEST_CASE("a GPU node at 3 of 8 GPUs goes after exactly the unneeded time, at 5 of 8 it stays",
          "[runner][cluster-autoscaler]") {
  const CaRun low(two_gpu_nodes() + gpu_deployment("llm", 3, 1));
  // The pods waited for the nodes' GPUs: they were placed on the starting nodes, not a reason
  // to scale up (the Cluster Autoscaler's GPU-readiness handling).
  CHECK(low.events.of(EventKind::ScaleUp).empty());
  const auto candidates = low.events.of(EventKind::ScaleDownCandidate, "big");
  REQUIRE(candidates.size() == 1);
  CHECK(candidates[0].message == "GPU utilization 0.375 at or below 0.5");
  const auto deleting = low.events.of(EventKind::NodeDeleting, "big");
  REQUIRE(deleting.size() == 1);
  // Unneeded for more than 10 minutes, seen at the next 10-second scan.
  CHECK(deleting[0].time == candidates[0].time + minutes(10) + seconds(10));
  CHECK(deleting[0].reason == EventReason{NodeDeletionReason::ScaleDown});
  CHECK(low.result.nodes.terminated_by_reason.count(NodeDeletionReason::ScaleDown) == 1);

  const CaRun high(two_gpu_nodes() + gpu_deployment("llm", 5, 1));
  CHECK(high.events.of(EventKind::ScaleDownCandidate, "big").empty());
  CHECK(high.events.of(EventKind::NodeDeleting, "big").empty());
}

TEST_CASE("a node with a safe-to-evict: \"false\" pod stays", "[runner][cluster-autoscaler]") {
  const CaRun r(two_gpu_nodes() +
                gpu_deployment("llm", 3, 1,
                               "      annotations: {cluster-autoscaler.kubernetes.io/"
                               "safe-to-evict: \"false\"}\n"));
  CHECK(r.events.of(EventKind::ScaleDownCandidate, "big").empty());
  CHECK(r.events.of(EventKind::NodeDeleting, "big").empty());
}

TEST_CASE("no scale-down inside the delay after a scale-up", "[runner][cluster-autoscaler]") {
  // `idle` is empty from the start; a Job makes `cpu` grow.
  const std::string groups =
      cluster(group("idle", "m5.large", 0, 1, 1) + group("cpu", "m5.xlarge", 0, 2, 0));
  const CaRun quiet(groups, "", "1h");
  const auto idle_candidate = quiet.events.of(EventKind::ScaleDownCandidate, "idle");
  REQUIRE(idle_candidate.size() == 1);
  REQUIRE(quiet.events.of(EventKind::NodeDeleting, "idle").size() == 1);
  CHECK(quiet.events.of(EventKind::NodeDeleting, "idle")[0].time ==
        idle_candidate[0].time + minutes(10) + seconds(10));
  CHECK(quiet.events.of(EventKind::NodeDeleting, "idle")[0].reason ==
        EventReason{NodeDeletionReason::ScaleDownEmpty});

  const CaRun busy(groups + job("work", 1, "2", "1Gi", "2h"),
                   "cluster_autoscaler: {scale_down_delay_after_add: 20m}\n", "1h");
  const auto ups = busy.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 1);
  const auto deleting = busy.events.of(EventKind::NodeDeleting, "idle");
  REQUIRE(deleting.size() == 1);
  // Unneeded since before, but removed only when the cool-down ends.
  CHECK(deleting[0].time == ups[0].time + minutes(20));
}

// clusterstate.updateScaleRequests: nodes not Ready by max-node-provision-time fail the
// scale-up; the group backs off, its unregistered instances go, and another group is grown.
TEST_CASE("a group whose nodes do not register in time backs off", "[runner][cluster-autoscaler]") {
  const CaRun r(kPreferGpuA,
                "cluster_autoscaler: {expander: priority}\nnode_latencies:\n  families: {g5: "
                "{launch: 5s, registration: 20m, initialization: 25s}}\n",
                "1h");
  const auto ups = r.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 2);
  CHECK(ups[0].node_group == "gpu-a");
  const auto failed = r.events.of(EventKind::ScaleUpFailed);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].reason == EventReason{ScaleUpFailure::TimedOut});
  // Expected by scale-up + 15 min; past it at the next scan.
  CHECK(failed[0].time == ups[0].time + minutes(15) + seconds(10));
  CHECK(ups[1].node_group == "gpu-b");
  CHECK(ups[1].time == failed[0].time);
  const auto gone = r.events.of(EventKind::NodeDeleting, "gpu-a");
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].reason == EventReason{NodeDeletionReason::ScaleUpTimedOut});
}

namespace {

using Groups = std::vector<std::pair<std::string, std::int64_t>>;

// A g5.xlarge group and a g5.2xlarge group, both empty. `warm` (1 GPU, 1 GiB) runs 10 minutes on
// a g5.xlarge (least-waste's pick), which then goes; at 1 h `big` asks for 1 GPU, 3 CPUs and
// 14 GiB, as the provisioner-comparison example's pods do: AWS's scale-from-zero template (the
// raw 16 GiB) takes it, a real g5.xlarge (about 13.8 GiB allocatable) does not.
std::string scaled_to_zero() {
  const std::string big =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big}\nspec:\n  replicas: 0\n"
      "  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n"
      "    spec:\n      tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n"
      "      containers:\n        - name: c\n          resources: {requests: {cpu: \"3\", "
      "memory: 14Gi, nvidia.com/gpu: 1}}\n---\n";
  return cluster(group("small", "g5.xlarge", 0, 2, 0, kGpuTaint) +
                 group("large", "g5.2xlarge", 0, 2, 0, kGpuTaint)) +
         gpu_deployment("warm", 1, 1) + big;
}

const std::string kScaledToZeroEvents =
    "events:\n  - {at: 10m, scale: {deployment: warm, replicas: 0}}\n"
    "  - {at: 1h, scale: {deployment: big, replicas: 1}}\n";

}  // namespace

// processors/nodeinfosprovider/mixed_nodeinfos_processor_test.go TestGetNodeInfosForGroupsCache
// (ng4: a group without nodes answers with the template cached from its last node) and
// TestGetNodeInfosCacheExpired, in a run: the g5.xlarge group scaled to zero keeps the template
// its node taught it, so the 14 GiB pod grows the g5.2xlarge group only.
TEST_CASE("a group scaled to zero keeps the template learned from its node",
          "[runner][cluster-autoscaler]") {
  // Lockstep phases (`phase_offsets: zero`): the scans fall on whole 10 s from the start, so
  // the scale-up after the 30 s buffer comes at exactly 1h0m30s.
  const CaRun kept(scaled_to_zero(), kScaledToZeroEvents + "phase_offsets: zero\n", "2h");
  const auto ups = kept.events.of(EventKind::ScaleUp);
  REQUIRE(ups.size() == 2);
  CHECK(ups[0].grown == Groups{{"small", 1}});
  CHECK(ups[0].options == Groups{{"small", 1}, {"large", 1}});
  const auto gone = kept.events.of(EventKind::NodeDeleting, "small");
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].time < kSimStart + hours(1));
  // The 30 s GPU-pod buffer, then the next scan.
  CHECK(ups[1].time == kSimStart + hours(1) + seconds(30));
  CHECK(ups[1].options == Groups{{"large", 1}});
  CHECK(ups[1].grown == Groups{{"large", 1}});
  CHECK(kept.events.of(EventKind::NodeLaunched, "small").size() == 1);

  // Expired 30 minutes after the group's node was last seen: the scale-from-zero template is
  // back, and least-waste buys a g5.xlarge the pod cannot use. When that node turns Ready it is
  // not a template for a minute (isNodeGoodTemplateCandidate's stabilizationDelay, the "recently
  // became ready" ng5 of TestGetNodeInfosForGroups): a second useless g5.xlarge; when that one
  // turns Ready, the first has taught the group.
  const CaRun expired(
      scaled_to_zero(),
      kScaledToZeroEvents + "phase_offsets: zero\n" +
          "cluster_autoscaler: {node_info_cache_expire_time: 30m}\n" +
          // Nodes start in the median time, so a scale-up meets a node turning Ready.
          "node_latencies: {gpu: {sigma: 0}}\n",
      "2h");
  const auto again = expired.events.of(EventKind::ScaleUp);
  const auto ready = expired.events.of(EventKind::NodeReady, "small");
  REQUIRE(again.size() == 4);
  REQUIRE(ready.size() == 3);
  CHECK(again[1].time == kSimStart + hours(1) + seconds(30));
  CHECK(again[1].options == Groups{{"small", 1}, {"large", 1}});
  CHECK(again[1].grown == Groups{{"small", 1}});
  CHECK(again[2].time == ready[1].time);
  CHECK(again[2].grown == Groups{{"small", 1}});
  CHECK(again[3].time == ready[2].time);
  CHECK(ready[2].time - ready[1].time > minutes(1));
  CHECK(again[3].options == Groups{{"large", 1}});
  CHECK(again[3].grown == Groups{{"large", 1}});
}

// processors/capacitybuffer pod_list_processor.go: with the buffer controller and pod
// injection on, each loop injects the buffer's fake pods among the unschedulable pods. One that
// fits nowhere grows a group (their zero creation time passes the GPU pods' 30 s buffer); once
// the node is Ready the fake pod is placed on it (FilterOutSchedulable), which keeps it from
// being empty for scale-down. Either flag off: nothing is injected.
TEST_CASE("a CapacityBuffer's fake pods grow a group and keep its node",
          "[runner][cluster-autoscaler]") {
  const std::string manifests =
      cluster(group("gpu", "g5.xlarge", 0, 3, 0, kGpuTaint)) + gpu_deployment("web", 0, 1) +
      "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {name: spare}\n"
      "spec:\n  scalableRef: {apiGroup: apps, kind: Deployment, name: web}\n  replicas: 1\n";
  const std::string flags =
      "cluster_autoscaler:\n  capacity_buffer_controller_enabled: true\n"
      "  capacity_buffer_pod_injection_enabled: true\n";
  const CaRun on(manifests, flags, "1h");
  const auto ups = on.events.of(EventKind::ScaleUp, "gpu");
  REQUIRE(ups.size() == 1);
  CHECK(ups[0].grown == std::vector<std::pair<std::string, std::int64_t>>{{"gpu", 1}});
  CHECK(on.events.of(EventKind::NodeLaunched, "gpu").size() == 1);
  CHECK(on.events.of(EventKind::NodeTerminated, "gpu").empty());
  CHECK(on.events.of(EventKind::ScaleDownCandidate).empty());
  REQUIRE(on.events.of(EventKind::NodeBufferPods).size() == 1);
  // The node held nothing but the buffer: its time from the loop that placed the fake pod on it
  // (about 80 s after the scale-up: GPU start-up) is headroom.
  CHECK(on.result.headroom.node_hours > 0.95);

  const CaRun off(manifests, "cluster_autoscaler:\n  capacity_buffer_controller_enabled: true\n",
                  "1h");
  CHECK(off.events.of(EventKind::ScaleUp).empty());
  CHECK(off.result.headroom.node_hours == 0.0);
}
