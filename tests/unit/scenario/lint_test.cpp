// `fleetsim lint`'s rules (issue 12, item 8): each on a minimal scenario, and the bundled examples
// giving only the findings their comments accept.
#include "fleetsim/scenario/lint/lint.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// A NodePool `gpu` of on-demand g5 types; `disruption` and `extra` (under template.spec) vary.
std::string pool(const std::string& extra = "", const std::string& disruption = "",
                 const std::string& name = "gpu", const std::string& limits = "") {
  return "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: " + name +
         "}\nspec:\n" + disruption + limits +
         "  template:\n    spec:\n"
         "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
         "      requirements:\n"
         "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}\n"
         "        - {key: karpenter.k8s.aws/instance-gpu-count, operator: In, values: [\"1\"]}\n"
         "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n" +
         extra;
}

const std::string kNodeClass =
    "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\n"
    "spec: {role: KarpenterNodeRole}\n";

// A workload `llm` of `kind` (Deployment or Job) asking for `gpus` GPUs; `extra` under its pod
// spec, `meta` under its pod template's metadata.
std::string workload(const std::string& kind = "Deployment", int gpus = 1,
                     const std::string& extra = "", const std::string& meta = "") {
  const bool job = kind == "Job";
  return "---\napiVersion: " + std::string(job ? "batch/v1" : "apps/v1") + "\nkind: " + kind +
         "\nmetadata:\n  name: llm\n" + (job ? "  annotations: {fleetsim.io/duration: 1h}\n" : "") +
         "spec:\n" + (job ? "" : "  replicas: 2\n  selector: {matchLabels: {app: llm}}\n") +
         "  template:\n    metadata:\n      labels: {app: llm}\n" + meta + "    spec:\n" +
         (job ? "      restartPolicy: Never\n" : "") + extra +
         "      containers:\n        - name: c\n          resources: {requests: {cpu: \"1\", "
         "memory: 4Gi, nvidia.com/gpu: " +
         std::to_string(gpus) + "}}\n";
}

struct Lint {
  test::TempDir dir{"lint"};
  std::vector<LintFinding> findings;
  Lint(const std::string& manifests, const std::string& scenario_extra = "") {
    dir.write("manifests.yaml", kNodeClass + manifests);
    const auto file = dir.write(
        "scenario.yaml", "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n" + scenario_extra);
    findings = lint_scenario(
        load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog"));
  }
  // "rule | subject | what | fix" of each finding.
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const LintFinding& f : findings)
      out.push_back(std::string(f.rule) + " | " + f.subject + " | " + f.what + " | " + f.fix);
    return out;
  }
};

}  // namespace

TEST_CASE("a clean scenario has no findings", "[scenario][lint]") {
  CHECK(Lint(pool() + workload()).lines().empty());
}

TEST_CASE("keda-average-query: an avg query under AverageValue caps the replicas",
          "[scenario][lint]") {
  auto scaled_object = [](const std::string& query, const std::string& metric_type) {
    return "---\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: llm}\n"
           "spec:\n  scaleTargetRef: {name: llm}\n  maxReplicaCount: 10\n  triggers:\n"
           "    - type: prometheus\n" +
           metric_type +
           "      metadata: {serverAddress: \"http://prometheus:9090\", threshold: \"60\", "
           "query: '" +
           query + "'}\n";
  };
  const std::string avg = "avg(DCGM_FI_DEV_GPU_UTIL{namespace=\"default\"})";
  CHECK(Lint(pool() + workload() + scaled_object(avg, "")).lines() ==
        std::vector<std::string>{
            "keda-average-query | ScaledObject default/llm | the query averages over pods, but an "
            "AverageValue target (the default) treats its value as the total of all pods: the "
            "Deployment gets ceil(average ÷ 60) replicas; GPU utilization is at most 100, so at "
            "most ceil(100 ÷ 60) = 2 replicas, whatever the load | sum the query (sum(...)) so it "
            "grows with the load, or set metricType: Value to scale by average ÷ threshold"});
  CHECK(
      Lint(pool() + workload() + scaled_object(avg, "      metricType: Value\n")).lines().empty());
  CHECK(Lint(pool() + workload() +
             scaled_object("sum(DCGM_FI_DEV_GPU_UTIL{namespace=\"default\"})", ""))
            .lines()
            .empty());
}

TEST_CASE("gpu-threshold-beyond-range: a percentage threshold on DCGM's 0-1 engine-active ratio",
          "[scenario][lint]") {
  auto scaled_object = [](const std::string& query, const std::string& threshold,
                          const std::string& metric_type) {
    return "---\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: llm}\n"
           "spec:\n  scaleTargetRef: {name: llm}\n  maxReplicaCount: 10\n  triggers:\n"
           "    - type: prometheus\n" +
           metric_type +
           "      metadata: {serverAddress: \"http://prometheus:9090\", threshold: \"" + threshold +
           "\", query: '" + query + "'}\n";
  };
  const auto lint = [&](const std::string& query, const std::string& threshold,
                        const std::string& metric_type = "") {
    return Lint(pool() + workload() + scaled_object(query, threshold, metric_type)).lines();
  };
  const std::string sum = "sum(DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"default\"})";
  CHECK(lint(sum, "80") ==
        std::vector<std::string>{
            "gpu-threshold-beyond-range | ScaledObject default/llm | the query reads "
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE, which is at most 1 per GPU, but the threshold is 80: "
            "the load never reaches it, so the Deployment never scales up | "
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE is a ratio: give the threshold as one (0.8 for 80%)"});
  CHECK(lint(sum, "0.8").empty());
  // A sum under a Value target can pass 1 with enough pods; an average cannot.
  CHECK(lint(sum, "80", "      metricType: Value\n").empty());
  const std::string avg = "avg(DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"default\"})";
  CHECK(lint(avg, "80", "      metricType: Value\n").size() == 1);
  // Scaled to a percentage by the query itself: no finding.
  CHECK(lint(avg + " * 100", "80", "      metricType: Value\n").empty());
  CHECK(lint("max(DCGM_FI_DEV_GPU_UTIL)", "120", "      metricType: Value\n") ==
        std::vector<std::string>{
            "gpu-threshold-beyond-range | ScaledObject default/llm | the query reads "
            "DCGM_FI_DEV_GPU_UTIL, which is at most 100 per GPU, but the threshold is 120: the "
            "load never reaches it, so the Deployment never scales up | DCGM_FI_DEV_GPU_UTIL is "
            "a percentage: give a threshold of at most 100"});
  // keda-average-query's cap, for the ratio.
  CHECK(lint(avg, "0.6") ==
        std::vector<std::string>{
            "keda-average-query | ScaledObject default/llm | the query averages over pods, but an "
            "AverageValue target (the default) treats its value as the total of all pods: the "
            "Deployment gets ceil(average ÷ 0.6) replicas; the graphics engine's active share is "
            "at most 1, so at most ceil(1 ÷ 0.6) = 2 replicas, whatever the load | sum the query "
            "(sum(...)) so it grows with the load, or set metricType: Value to scale by average "
            "÷ threshold"});
}

TEST_CASE("replicas-beyond-pool-limits: maxReplicas × GPUs past the pools' limits",
          "[scenario][lint]") {
  const std::string hpa =
      "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: llm}\n"
      "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: llm}\n"
      "  maxReplicas: 10\n  metrics:\n    - type: Pods\n      pods:\n"
      "        metric: {name: \"vllm:num_requests_running\"}\n"
      "        target: {type: AverageValue, averageValue: \"4\"}\n";
  CHECK(Lint(pool("", "", "gpu", "  limits: {nvidia.com/gpu: 4}\n") + workload() + hpa).lines() ==
        std::vector<std::string>{
            "replicas-beyond-pool-limits | HorizontalPodAutoscaler default/llm | maxReplicas 10 × "
            "1 nvidia.com/gpu per pod is 10, but the NodePools its pods can land on are limited "
            "to 4 in all: replicas past 4 stay Pending (fewer, when nodes hold GPUs no pod uses) "
            "| raise the NodePools' limits.nvidia.com/gpu to at least 10, or lower maxReplicas "
            "to 4"});
  // A second pool without a limit takes the rest.
  CHECK(Lint(pool("", "", "gpu", "  limits: {nvidia.com/gpu: 4}\n") + pool("", "", "more") +
             workload() + hpa)
            .lines()
            .empty());
}

TEST_CASE("multi-gpu-types-for-one-gpu-pods and limit-below-instance", "[scenario][lint]") {
  std::string multi = pool("", "", "gpu", "  limits: {nvidia.com/gpu: 4}\n");
  const std::string one_gpu =
      "        - {key: karpenter.k8s.aws/instance-gpu-count, operator: In, values: [\"1\"]}\n";
  multi.erase(multi.find(one_gpu), one_gpu.size());
  CHECK(Lint(multi + workload()).lines() ==
        std::vector<std::string>{
            "limit-below-instance | NodePool gpu | limits.nvidia.com/gpu is 4, less than one node "
            "of 1 of its 8 types (g5.48xlarge): Karpenter never launches those | raise "
            "limits.nvidia.com/gpu to at least 8, or keep those types out of the pool",
            "multi-gpu-types-for-one-gpu-pods | NodePool gpu | it allows multi-GPU types (up to "
            "8 GPUs, g5.48xlarge) for 1-GPU pods of Deployment default/llm: when several are "
            "pending in one batch, Karpenter launches one multi-GPU node for them and pays for "
            "its idle GPUs until consolidation replaces it | add {key: "
            "karpenter.k8s.aws/instance-gpu-count, operator: In, values: [\"1\"]} to the "
            "NodePool's requirements (or to the pods' node affinity)"});
  // 2-GPU pods are not what the rule is about.
  CHECK(Lint(multi + workload("Deployment", 2)).lines().size() == 1);
}

TEST_CASE("budget-blocks-forever, consolidate-after-before-ready and consolidation-blocked",
          "[scenario][lint]") {
  CHECK(Lint(pool("", "  disruption:\n    budgets: [{nodes: \"0\"}]\n") + workload()).lines() ==
        std::vector<std::string>{
            "budget-blocks-forever | NodePool gpu | a budget of 0 nodes without a schedule stops "
            "disruption for every reason (emptiness, consolidation, drift) for the whole run: no "
            "node of the pool is ever removed or replaced for it | give the budget a schedule "
            "and a duration (a window when disruption stops), or remove it"});
  CHECK(Lint(pool("",
                  "  disruption:\n    budgets: [{nodes: \"0\", schedule: \"0 9 * * 1-5\", "
                  "duration: 8h}]\n") +
             workload())
            .lines()
            .empty());
  // 12Gi at 60 MB/s is 214.75 s, plus a 60 s model load: 4m35s with the second rounded up.
  const std::string service =
      "services:\n  - deployment: llm\n    traffic: {pattern: poisson, rps: 1}\n"
      "    startup: {image_size: 12Gi, model_load: 60s}\n";
  CHECK(Lint(pool("", "  disruption: {consolidateAfter: 30s}\n") + workload(), service).lines() ==
        std::vector<std::string>{
            "consolidate-after-before-ready | NodePool gpu | consolidateAfter 30s is shorter than "
            "a replica's image pull and model load on a new node (llm (4m35s)): Karpenter may "
            "consolidate a node while a replica is still starting there, and the replica starts "
            "over elsewhere | set spec.disruption.consolidateAfter to more than 4m35s"});
  CHECK(Lint(pool("", "  disruption: {consolidateAfter: 5m}\n") + workload(), service)
            .lines()
            .empty());
  CHECK(Lint(pool() + workload("Deployment", 1, "",
                               "      annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n"))
            .lines() ==
        std::vector<std::string>{
            "consolidation-blocked | Deployment default/llm | its pods carry "
            "karpenter.sh/do-not-disrupt: \"true\", so consolidation never moves them: on "
            "NodePool gpu the underutilized nodes they run on stay, and the policy acts only on "
            "nodes without them | keep karpenter.sh/do-not-disrupt for pods that must finish "
            "(Jobs), and let the PDB allow an eviction (maxUnavailable: 1)"});
  const std::string pdb =
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: llm}\n"
      "spec: {maxUnavailable: 0, selector: {matchLabels: {app: llm}}}\n";
  CHECK_THAT(Lint(pool() + workload() + pdb).lines().at(0),
             Catch::StartsWith("consolidation-blocked | Deployment default/llm | "
                               "PodDisruptionBudget default/llm allows no eviction of its pods"));
  // WhenEmpty never moves pods anyway.
  CHECK(Lint(pool("", "  disruption: {consolidationPolicy: WhenEmpty}\n") + workload() + pdb)
            .lines()
            .empty());
}

TEST_CASE("spot-only-jobs: Jobs that can run only on spot", "[scenario][lint]") {
  std::string spot = pool();
  spot.replace(spot.find("values: [on-demand]"), 19, "values: [spot]");
  CHECK(Lint(spot + workload("Job")).lines() ==
        std::vector<std::string>{
            "spot-only-jobs | Job default/llm | its pods can run only on spot capacity and it "
            "does not checkpoint: each interruption ends a pod and all the work it had done, and "
            "when spot is short the Job waits | allow on-demand in the NodePool's "
            "karpenter.sh/capacity-type (Karpenter prefers spot while it is offered), or add an "
            "on-demand NodePool of lower weight; if the job saves checkpoints, say how often with "
            "the fleetsim.io/checkpoint-interval annotation"});
  // A Job that checkpoints loses only the work since its last checkpoint.
  CHECK(Lint(spot +
             workload("Job", 1, "", "      annotations: {fleetsim.io/checkpoint-interval: 30m}\n"))
            .lines()
            .empty());
  CHECK(Lint(spot + pool("", "", "fallback") + workload("Job")).lines().empty());
  CHECK(Lint(spot + workload()).lines().empty());  // a Deployment's replicas come back
}

TEST_CASE("untolerated-taint, unsatisfiable-selector and unneeded-toleration", "[scenario][lint]") {
  const std::string tainted =
      pool("      taints: [{key: dedicated, value: gpu, effect: NoSchedule}]\n");
  CHECK(Lint(tainted + workload()).lines() ==
        std::vector<std::string>{
            "untolerated-taint | NodePool gpu | no workload tolerates its taint "
            "dedicated=gpu:NoSchedule, so the pool never gets a pod | add a toleration of "
            "dedicated to the workloads meant for this pool, or remove the taint"});
  const std::string tolerates = "      tolerations: [{key: dedicated, operator: Exists}]\n";
  CHECK(Lint(tainted + workload("Deployment", 1, tolerates)).lines().empty());
  CHECK(Lint(pool() + workload("Deployment", 1, tolerates)).lines() ==
        std::vector<std::string>{
            "unneeded-toleration | Deployment default/llm | it tolerates dedicated, which no "
            "NodePool's taints include: the toleration changes nothing | drop the toleration, "
            "or taint the NodePool meant for these pods"});
  // The guides' own mistake (issue 12, finding 2).
  CHECK(Lint(pool() + workload("Deployment", 1, "      nodeSelector: {node-type: gpu-inference}\n"))
            .lines() ==
        std::vector<std::string>{
            "unsatisfiable-selector | Deployment default/llm | its nodeSelector or required node "
            "affinity matches no NodePool (NodePool gpu: nodeSelector node-type=gpu-inference: "
            "label \"node-type\" is not defined by the NodePool), so its pods stay Pending | set "
            "the label in a NodePool's template "
            "metadata.labels (or its requirements), or fix the selector"});
  CHECK(Lint(pool("", "", "gpu", "") +
             workload("Deployment", 1, "      nodeSelector: {karpenter.sh/nodepool: gpu}\n"))
            .lines()
            .empty());
}

// Issue 25, item 3: a selector is checked against the labels of the instance types a pool may
// launch too, and against node groups beside Karpenter, whose nodes carry eksctl's labels.
TEST_CASE("unsatisfiable-selector: instance types and node groups", "[scenario][lint]") {
  const std::string p4d = "      nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}\n";
  CHECK(Lint(pool() + workload("Deployment", 1, p4d)).lines() ==
        std::vector<std::string>{
            "unsatisfiable-selector | Deployment default/llm | its nodeSelector or required node "
            "affinity matches no NodePool (NodePool gpu: nodeSelector "
            "node.kubernetes.io/instance-type=p4d.24xlarge is outside the NodePool's instance "
            "types (node.kubernetes.io/instance-type In [g5.16xlarge, g5.2xlarge, g5.4xlarge, "
            "g5.8xlarge, g5.xlarge])), so its pods stay Pending | set the label in a NodePool's "
            "template metadata.labels (or its requirements), or fix the selector"});
  // A GPU the pool's types do not have, by affinity.
  const std::string a100 =
      "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuring"
      "Execution:\n            nodeSelectorTerms:\n              - matchExpressions:\n"
      "                  - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: "
      "[a100, h100]}\n";
  CHECK(Lint(pool() + workload("Deployment", 1, a100)).lines() ==
        std::vector<std::string>{
            "unsatisfiable-selector | Deployment default/llm | its nodeSelector or required node "
            "affinity matches no NodePool (NodePool gpu: node affinity "
            "karpenter.k8s.aws/instance-gpu-name In [a100, h100] is outside the NodePool's "
            "instance types (karpenter.k8s.aws/instance-gpu-name In [a10g])), so its pods stay "
            "Pending | set the label in a NodePool's template metadata.labels (or its "
            "requirements), or fix the selector"});
  // A node group beside Karpenter hosts pods pinned by the labels its nodes carry.
  const std::string group =
      "---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
      "us-east-1}\nmanagedNodeGroups:\n  - name: ng\n    instanceType: g5.xlarge\n"
      "    desiredCapacity: 1\n    maxSize: 1\n";
  CHECK(Lint(pool() + group +
             workload("Deployment", 1, "      nodeSelector: {eks.amazonaws.com/nodegroup: ng}\n"))
            .lines()
            .empty());
  // Under the Cluster Autoscaler, the groups' instance types.
  CHECK(Lint(group + workload("Deployment", 1, p4d), "provisioner: cluster-autoscaler\n").lines() ==
        std::vector<std::string>{
            "unsatisfiable-selector | Deployment default/llm | its nodeSelector or required node "
            "affinity matches no node group (node group ng: nodeSelector "
            "node.kubernetes.io/instance-type=p4d.24xlarge is outside the node group's "
            "node.kubernetes.io/instance-type In [g5.xlarge]), so its pods stay Pending | set the "
            "label in a NodePool's template metadata.labels (or its requirements), or fix the "
            "selector"});
}

TEST_CASE("best-effort-pods: pods that request nothing, and loading warns of them too",
          "[scenario][lint]") {
  // Containers without resources: the pod requests nothing (issue 25, item 2).
  std::string best_effort = workload();
  best_effort = best_effort.substr(0, best_effort.find("          resources:"));
  Lint l(pool() + best_effort);
  CHECK(l.lines() ==
        std::vector<std::string>{
            "best-effort-pods | Deployment default/llm | its pods request no CPU, memory or "
            "accelerator: any number of them fit on a node, so no node is ever bought for them "
            "(and the kubelet evicts them first under pressure) | give its containers "
            "resources.requests for what they use"});
  const ScenarioConfig cfg =
      load_scenario(l.dir.path() / "scenario.yaml",
                    std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  REQUIRE(cfg.warnings.size() == 1);
  CHECK(cfg.warnings[0].field == "Deployment default/llm: resources.requests");
  CHECK(cfg.warnings[0].message ==
        "the pods of Deployment llm request no CPU, memory or accelerator (BestEffort): any "
        "number of them fit on a node, so no node is ever bought for them and their cost and "
        "GPU figures mean nothing; give its containers resources.requests");
}

// autoscaler#8095 (open): FilterOutNodesWithUnreadyResources copies a node that carries the GPU
// label and advertises no nvidia.com/gpu as unready; the run's consequence is in
// gpu_sharing_run_test.cpp ("MIG-only nodes the Cluster Autoscaler takes for unready ...").
TEST_CASE(
    "gpu-node-never-ready: a GPU-labelled group of mixed-strategy MIG nodes under the "
    "Cluster Autoscaler",
    "[scenario][lint]") {
  const auto group = [](const std::string& labels) {
    return "---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, "
           "region: us-east-1}\nmanagedNodeGroups:\n  - name: mig\n    instanceType: "
           "p4d.24xlarge\n    maxSize: 2\n    labels: {" +
           labels + "}\n";
  };
  const std::string labelled =
      group("nvidia.com/mig.config: all-1g.5gb, k8s.amazonaws.com/accelerator: nvidia-a100");
  const std::string ca = "provisioner: cluster-autoscaler\n";
  const Lint mixed(labelled, ca + "gpu_operator: {mig_strategy: mixed}\n");
  CHECK(mixed.lines() ==
        std::vector<std::string>{
            "gpu-node-never-ready | node group mig | its nodes carry "
            "k8s.amazonaws.com/accelerator and will offer nvidia.com/mig-1g.5gb but no "
            "nvidia.com/gpu, so the Cluster Autoscaler takes each for a node whose GPUs are not "
            "ready yet, for ever (FilterOutNodesWithUnreadyResources, autoscaler#8095): the "
            "group's scale-ups time out and back it off, and past --ok-total-unready-count such "
            "nodes stop all scaling | advertise MIG devices as nvidia.com/gpu "
            "(gpu_operator.mig_strategy: single) or shared GPUs under their own name "
            "(renameByDefault: false); fleetsim's cluster_autoscaler.gpu_readiness: "
            "any-nvidia-resource models the fix proposed upstream (PR #9673)"});
  // The single strategy advertises the slices as nvidia.com/gpu; the proposed fix takes any
  // nvidia.com/ resource; without the label the autoscaler does not expect GPUs at all.
  CHECK(Lint(labelled, ca).lines().empty());
  CHECK(Lint(labelled, ca + "gpu_operator: {mig_strategy: mixed}\n"
                            "cluster_autoscaler: {gpu_readiness: any-nvidia-resource}\n")
            .lines()
            .empty());
  CHECK(
      Lint(group("nvidia.com/mig.config: all-1g.5gb"), ca + "gpu_operator: {mig_strategy: mixed}\n")
          .lines()
          .empty());
}

// Every finding on a bundled example must be accepted by a `# lint accepts RULE: why` comment
// in its scenario file, and every accepted rule must still be found.
TEST_CASE("under the Cluster Autoscaler the placement rules read the node groups",
          "[scenario][lint]") {
  const Lint l(
      "---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
      "managedNodeGroups:\n  - name: gpu\n    instanceType: g5.xlarge\n"
      "    taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n---\n" +
          workload(),
      "provisioner: cluster-autoscaler\n");
  REQUIRE(l.findings.size() == 1);
  CHECK(l.findings[0].rule == "untolerated-taint");
  CHECK(l.findings[0].subject == "node group gpu");
}

TEST_CASE("the bundled examples give only the findings their comments accept", "[scenario][lint]") {
  const auto root = std::filesystem::path(FLEETSIM_SOURCE_DIR) / "scenarios";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().filename() == "scenario.yaml" ||
        e.path().parent_path().filename() == "consolidation" ||
        e.path().parent_path().filename() == "provisioner-comparison")
      if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  const std::regex accepts("^# lint accepts ([a-z0-9-]+):");
  for (const auto& file : files) {
    INFO(file.string());
    std::set<std::string> accepted, found;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, accepts)) accepted.insert(m[1]);
    }
    for (const LintFinding& f : lint_scenario(
             load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog")))
      found.insert(std::string(f.rule));
    CHECK(found == accepted);
  }
}

TEST_CASE("README documents every lint rule", "[scenario][lint]") {
  std::ifstream in(std::filesystem::path(FLEETSIM_SOURCE_DIR) / "README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const LintRule& rule : kLintRules) {
    INFO(rule.id);
    CHECK_THAT(readme, Catch::Contains("| `" + std::string(rule.id) + "` | " +
                                       std::string(to_string(rule.severity)) + " |"));
  }
}

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::vector<std::string> rules(const Lint& l) {
  std::vector<std::string> out;
  for (const LintFinding& f : l.findings) out.emplace_back(f.rule);
  return out;
}

const std::string kGateOn = "karpenter: {feature_gates: {node_overlay: true}}\n";

}  // namespace

TEST_CASE("gpu-slices-invisible: MIG pods no type offers until a NodeOverlay does",
          "[scenario][lint]") {
  const std::string mig = replaced(workload(), "nvidia.com/gpu: 1", "nvidia.com/mig-3g.20gb: 1");
  const Lint plain(pool() + mig);
  REQUIRE(rules(plain) == std::vector<std::string>{"gpu-slices-invisible"});
  CHECK(plain.lines()[0] ==
        "gpu-slices-invisible | Deployment default/llm | its pods ask for "
        "nvidia.com/mig-3g.20gb, which no instance type lists: Karpenter sees EC2's physical GPU "
        "count only (slices appear once the GPU Operator or the device plugin has configured a "
        "running node), so it never launches a node for them and they stay pending | tell "
        "Karpenter what a node will offer with a NodeOverlay (karpenter.sh/v1alpha1, with "
        "karpenter.feature_gates.node_overlay: true): requirements selecting the pool's GPU "
        "types and capacity {nvidia.com/mig-3g.20gb: N}, N the slices per node of the layout "
        "its nodes get");
  const std::string overlay =
      "---\napiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: mig}\n"
      "spec:\n  requirements:\n    - {key: karpenter.sh/nodepool, operator: In, values: [gpu]}\n"
      "  capacity: {nvidia.com/mig-3g.20gb: 2}\n";
  CHECK(rules(Lint(pool() + mig + overlay, kGateOn)).empty());
  // With the gate off the overlay does nothing, and the finding stays.
  CHECK(rules(Lint(pool() + mig + overlay)) == std::vector<std::string>{"gpu-slices-invisible"});
}

TEST_CASE("time-sliced-pool-overprovisions: a device-plugin config label without an overlay",
          "[scenario][lint]") {
  const std::string sliced =
      replaced(pool(), "  template:\n    spec:\n",
               "  template:\n    metadata:\n      labels: {nvidia.com/device-plugin.config: "
               "ts-4}\n    spec:\n");
  // The device plugin's ConfigMap, which the GPU Operator's devicePlugin.config.name names.
  const std::string config_map =
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: dp}\ndata:\n  ts-4: |\n"
      "    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n"
      "          - {name: nvidia.com/gpu, replicas: 4}\n";
  const std::string settings = "gpu_operator: {device_plugin_config: dp}\n";
  const Lint plain(sliced + workload() + config_map, settings);
  REQUIRE(rules(plain) == std::vector<std::string>{"time-sliced-pool-overprovisions"});
  CHECK(plain.findings[0].subject == "NodePool gpu");
  CHECK(plain.findings[0].what.starts_with(
      "its nodes share GPUs by the device plugin's configuration \"ts-4\""));
  const std::string overlay =
      "---\napiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: shared}\n"
      "spec:\n  requirements:\n    - {key: karpenter.sh/nodepool, operator: In, values: [gpu]}\n"
      "  capacity: {nvidia.com/gpu: 4}\n";
  CHECK(rules(Lint(sliced + workload() + config_map + overlay, kGateOn + settings)).empty());
  // Without the ConfigMap the label selects nothing: the nodes do not share their GPUs.
  CHECK(rules(Lint(sliced + workload())).empty());
}

// karpenter pkg/controllers/provisioning/scheduling/scheduler.go add(): under
// --ignore-dra-requests a pod with claims fails with a DRAError and no NodeClaim is launched.
TEST_CASE("dra-pods-ignored: pods with claims under Karpenter and the node groups that take them",
          "[scenario][lint]") {
  const std::string claim =
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: g}\n"
      "spec:\n  spec:\n    devices:\n      requests:\n"
      "        - {name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}\n";
  const std::string dra = replaced(workload(), "nvidia.com/gpu: 1}}\n",
                                   "nvidia.com/gpu: 0}}\n      resourceClaims: [{name: gpu, "
                                   "resourceClaimTemplateName: g}]\n");
  const Lint plain(pool() + claim + dra);
  REQUIRE(rules(plain) == std::vector<std::string>{"dra-pods-ignored"});
  CHECK(plain.findings[0].what ==
        "its pods take devices through ResourceClaims, and Karpenter runs with "
        "--ignore-dra-requests (true upstream): it never launches a node for them, so they run "
        "only where a node already running publishes the devices (none does here: they stay "
        "pending)");
  const std::string group =
      "---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: "
      "us-east-1}\nmanagedNodeGroups:\n  - name: dra-gpus\n    instanceType: g5.xlarge\n"
      "    minSize: 1\n    maxSize: 1\n    labels: {nvidia.com/dra-kubelet-plugin: \"true\"}\n";
  const Lint with_group(pool() + claim + dra + group);
  REQUIRE(rules(with_group) == std::vector<std::string>{"dra-pods-ignored"});
  CHECK_THAT(with_group.findings[0].what,
             Catch::EndsWith("(node groups dra-gpus, at their fixed size)"));
  // The Cluster Autoscaler provisions for claims: no finding.
  CHECK(rules(Lint(claim + dra + group, "provisioner: cluster-autoscaler\n")).empty());
}
