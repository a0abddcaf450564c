// Checks against the NodePools at load time (issue 12, findings 2 and 3): what validate says is
// what the run would hit.
#include "fleetsim/scenario/nodepool_checks.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// One on-demand NodePool of T4 (g4dn) and A10G (g5) types with its EC2NodeClass.
const std::string kGpuPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g4dn, g5]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {role: KarpenterNodeRole}
)";

// A Deployment `llm` of one replica asking for `gpus` NVIDIA GPUs, with `extra` under its pod spec.
std::string deployment(int gpus, const std::string& extra = "") {
  return "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n"
         "  replicas: 1\n  selector: {matchLabels: {app: llm}}\n  template:\n"
         "    metadata: {labels: {app: llm}}\n    spec:\n" +
         extra +
         "      containers:\n        - name: vllm\n          resources: {requests: {cpu: \"2\", "
         "memory: 8Gi, nvidia.com/gpu: " +
         std::to_string(gpus) + "}}\n";
}

struct Scenario {
  test::TempDir dir{"nodepool-checks"};
  std::filesystem::path file;
  // The manifests, and a service on `llm` whose lines follow its `traffic`.
  Scenario(const std::string& manifests, const std::string& service_extra) {
    dir.write("manifests.yaml", manifests);
    file = dir.write("scenario.yaml",
                     "name: s\nduration: 1h\nmanifests: [manifests.yaml]\nservices:\n"
                     "  - deployment: llm\n    traffic: {pattern: poisson, rps: 1}\n" +
                         service_extra);
  }
  ScenarioConfig load() const {
    return load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  }
  std::string error() const {
    return test::config_error([&] { load(); });
  }
};

}  // namespace

TEST_CASE("a model keeps its Deployment off the types vLLM would not start on (issue 12 finding 3)",
          "[scenario]") {
  // Llama 3.1 8B in fp16 (the T4 has no bf16) is 16 GB: nothing is left of a T4's 15 GiB at
  // gpu_memory_utilization 0.9. On an A10G it leaves a KV cache for max_model_len 8192.
  Scenario s(kGpuPool + deployment(1),
             "    model: {name: llama-3.1-8b}\n    engine: {max_model_len: 8192}\n");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.warnings.size() == 1);
  CHECK(cfg.warnings[0].code == WarningCode::ModelKeepsOffTypes);
  CHECK(cfg.warnings[0].where.to_string() == s.file.string() + ":7:12");
  CHECK(cfg.warnings[0].field == "services[0].model");
  CHECK(cfg.warnings[0].message ==
        "llama-3.1-8b cannot be served on g4dn.12xlarge, g4dn.16xlarge, g4dn.2xlarge, "
        "g4dn.4xlarge, g4dn.8xlarge and 2 more (llama-3.1-8b in fp16 needs 15.0 GiB of weights "
        "per GPU at tensor parallelism 1 and 2.5 GiB for activations and buffers; a t4 has 15.0 "
        "GiB, of which gpu_memory_utilization 0.9 leaves no room for a KV cache), so llm's pods "
        "keep off them, as a nodeAffinity node.kubernetes.io/instance-type NotIn would");
  // The run's solver sees it as the pods' own node requirement.
  const Requirement* types =
      cfg.workloads.at(0).pod.spec.node_requirements.get(label::kInstanceType);
  REQUIRE(types != nullptr);
  CHECK_FALSE(types->allows("g4dn.xlarge"));
  CHECK(types->allows("g5.xlarge"));
}

TEST_CASE("a model no type its pools allow can serve is refused with each type's reason",
          "[scenario]") {
  // At the model's own context length (131072 tokens) the A10G's KV cache is too small, as vLLM
  // says when it refuses to start.
  CHECK_THAT(Scenario(kGpuPool + deployment(1), "    model: {name: llama-3.1-8b}\n").error(),
             Catch::EndsWith(
                 "7:12: services[0].model: llama-3.1-8b cannot be served on any instance type "
                 "llm's pods can be launched on: g5.12xlarge, g5.16xlarge, g5.24xlarge, "
                 "g5.2xlarge, g5.48xlarge and 3 more (its KV cache holds 22784 tokens, less than "
                 "max_model_len 131072 (16.00 GiB of KV cache would be needed, 2.78 GiB is "
                 "available); vLLM refuses to start: lower engine.max_model_len or raise "
                 "engine.gpu_memory_utilization); g4dn.12xlarge, g4dn.16xlarge, g4dn.2xlarge, "
                 "g4dn.4xlarge, g4dn.8xlarge and 2 more (llama-3.1-8b in fp16 needs 15.0 GiB of "
                 "weights per GPU at tensor parallelism 1 and 2.5 GiB for activations and "
                 "buffers; a t4 has 15.0 GiB, of which gpu_memory_utilization 0.9 leaves no room "
                 "for a KV cache)"));
}

TEST_CASE("tensor parallelism is checked as vLLM checks it", "[scenario]") {
  auto error = [](int gpus, const std::string& lines) {
    const std::string e = Scenario(kGpuPool + deployment(gpus), lines).error();
    return e.substr(e.find("scenario.yaml:") + 14);
  };
  CHECK(error(3, "    model: {name: llama-3.1-8b}\n") ==
        "7:12: services[0].model: Total number of attention heads (32) must be divisible by "
        "tensor parallel size (3), as vLLM requires (tensor_parallel_size is the pods' GPU "
        "count)");
  CHECK(error(2, "    model: {name: llama-3.1-8b}\n    engine: {tensor_parallel_size: 4}\n") ==
        "8:13: services[0].engine.tensor_parallel_size: tensor_parallel_size 4 needs 4 GPUs per "
        "replica; llm's pods request 2");
  CHECK(error(0, "    model: {name: llama-3.1-8b}\n") ==
        "7:12: services[0].model: Deployment llm requests no GPU; the model runs on its pods' "
        "GPUs");
  Scenario idle(kGpuPool + deployment(2),
                "    model: {name: llama-3.1-8b}\n    engine: {tensor_parallel_size: 1, "
                "max_model_len: 8192}\n");
  const ScenarioConfig cfg = idle.load();
  const auto unused = std::find_if(cfg.warnings.begin(), cfg.warnings.end(), [](const Warning& w) {
    return w.code == WarningCode::GpusUnused;
  });
  REQUIRE(unused != cfg.warnings.end());
  CHECK(unused->message ==
        "1 of the 2 GPUs each pod requests do no work: the engine shards the model over 1");
}

TEST_CASE("fp8 weights are refused on a T4 and run weight-only on an A10G as in vLLM",
          "[scenario]") {
  Scenario s(kGpuPool + deployment(1),
             "    model: {name: llama-3.1-8b, dtype: fp8}\n    engine: {max_model_len: 8192}\n");
  const ScenarioConfig cfg = s.load();
  std::vector<std::string> messages;
  for (const Warning& w : cfg.warnings)
    messages.push_back(std::string(to_string(w.code)) + ": " + w.message);
  CHECK(messages ==
        std::vector<std::string>{
            "model-keeps-off-types: llama-3.1-8b in fp8 cannot be served on g4dn.12xlarge, "
            "g4dn.16xlarge, g4dn.2xlarge, g4dn.4xlarge, g4dn.8xlarge and 2 more (vLLM refuses fp8 "
            "on t4: \"Minimum capability: 80. Current capability: 75\"), so llm's pods keep off "
            "them, as a nodeAffinity node.kubernetes.io/instance-type NotIn would",
            "engine-note: on g5.12xlarge, g5.16xlarge, g5.24xlarge, g5.2xlarge, g5.48xlarge and 3 "
            "more: a10g has no fp8 units: vLLM runs fp8 weights weight-only (W8A16, the "
            "FP8-Marlin kernel), at its 16-bit compute rate"});
}

TEST_CASE("a workload no NodePool can host is named with each pool's reason (issue 12, finding 2)",
          "[scenario]") {
  // The finding: a nodeSelector no NodePool sets passed validate, and the run missed every SLO.
  Scenario s(kGpuPool + deployment(1, "      nodeSelector: {node-type: gpu-inference}\n"),
             "    model: {name: llama-3.1-8b}\n");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.warnings.size() == 1);
  CHECK(cfg.warnings[0].field == "Deployment default/llm");
  CHECK(cfg.warnings[0].message ==
        "no NodePool can host its pods, so they stay Pending: nodepool gpu: nodeSelector "
        "node-type=gpu-inference: label \"node-type\" is not defined by the NodePool");
  // A taint no pod tolerates, and a pool that does not allow GPUs, each give their own reason.
  std::string tainted = kGpuPool;
  tainted.insert(tainted.find("      requirements:"),
                 "      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n");
  std::string cpu_only = kGpuPool;
  cpu_only.replace(cpu_only.find("values: [g4dn, g5]"), 18, "values: [m5]");
  cpu_only.replace(cpu_only.find("{name: gpu}"), 11, "{name: cpu}");
  cpu_only = cpu_only.substr(0, cpu_only.find("---"));
  CHECK(Scenario(tainted + "---\n" + cpu_only + deployment(1), "").load().warnings.at(0).message ==
        "no NodePool can host its pods, so they stay Pending: nodepool gpu: did not tolerate "
        "nvidia.com/gpu=:NoSchedule; nodepool cpu: no instance type has room for cpu=2 "
        "memory=8Gi gpus=1 plus daemonset overhead");
}

TEST_CASE("a workload a scripted apply's NodePool can host draws no warning", "[scenario]") {
  Scenario s(deployment(1).substr(4), "");  // the pool comes at 30m
  s.dir.write("pools.yaml", kGpuPool);
  s.dir.write("scenario.yaml",
              "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
              "events:\n  - {at: 30m, apply: pools.yaml}\n");
  CHECK(s.load().warnings.empty());
}

namespace {

// A NodePool of `type` whose template carries `labels`, with its EC2NodeClass.
std::string labelled_pool(const std::string& type, const std::string& labels) {
  return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: shared}\nspec:\n"
         "  template:\n    metadata:\n      labels: {" +
         labels +
         "}\n    spec:\n"
         "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
         "      requirements:\n"
         "        - {key: node.kubernetes.io/instance-type, operator: In, values: [" +
         type +
         "]}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: "
         "default}\nspec: {role: KarpenterNodeRole}\n";
}

const std::string kTimeSlicing4 =
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: dp}\ndata:\n  any: |\n"
    "    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n"
    "          - {name: nvidia.com/gpu, replicas: 4}\n";

}  // namespace

TEST_CASE(
    "time-sliced replicas at the default gpu_memory_utilization warn that a second cannot "
    "start",
    "[scenario]") {
  test::TempDir dir("shared-gpu-memory");
  dir.write("manifests.yaml",
            labelled_pool("g6e.xlarge", "team: ml") + deployment(1) + kTimeSlicing4);
  auto load = [&](const std::string& engine, const std::string& model = "llama-3.1-8b") {
    const auto file =
        dir.write("scenario.yaml",
                  "name: s\nduration: 1h\nmanifests: [manifests.yaml]\ngpu_operator: "
                  "{device_plugin_config: dp, device_plugin_default: any}\nservices:\n"
                  "  - deployment: llm\n    traffic: {pattern: poisson, rps: 1}\n"
                  "    model: {name: " +
                      model + "}\n" + engine);
    return load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  };
  const ScenarioConfig cfg = load("");
  REQUIRE(cfg.warnings.size() == 1);
  CHECK(cfg.warnings[0].code == WarningCode::SharedGpuMemory);
  CHECK(cfg.warnings[0].message ==
        "pool shared time-slices g6e.xlarge's GPU 4 ways, but each replica of llm takes 0.9 of "
        "its memory (gpu_memory_utilization): only 1 of the 4 replicas one GPU takes can start, "
        "as vLLM finds too little free memory for the next (it exits, and the kubelet restarts it "
        "with CrashLoopBackOff while the GPU stays full); set engine.gpu_memory_utilization "
        "to at most 0.25, or give each replica a GPU of its own");
  CHECK(load("    engine: {gpu_memory_utilization: 0.5, max_model_len: 8192}\n")
            .warnings[0]
            .message.find("only 2 of the 4 replicas") != std::string::npos);
  // An 8B model needs more than a quarter of an L40S; Llama 3.2 1B fits in one.
  const ScenarioConfig small =
      load("    engine: {gpu_memory_utilization: 0.25, max_model_len: 8192}\n", "llama-3.2-1b");
  CHECK(small.warnings.empty());
}

TEST_CASE("a model that does not fit a MIG slice of the pool's GPUs is refused", "[scenario]") {
  // Llama 3.1 8B in bf16 is 16 GB; a 1g.10gb slice of p4de's A100-80GB has 10 GiB.
  Scenario s(labelled_pool("p4de.24xlarge", "nvidia.com/mig.config: all-1g.10gb") + deployment(1),
             "    model: {name: llama-3.1-8b}\n");
  const std::string e = s.error();
  CHECK(e.find("services[0].model: llama-3.1-8b cannot be served on a share of p4de.24xlarge's "
               "GPU (a MIG slice of all-1g.10gb of pool shared): ") != std::string::npos);
  // On a 3g.40gb slice it fits.
  Scenario ok(labelled_pool("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb") + deployment(1),
              "    model: {name: llama-3.1-8b}\n");
  CHECK(ok.load().warnings.empty());
}

namespace {

// A Deployment `llm` of one replica asking for one MIG device of `profile` (the mixed strategy).
std::string mig_deployment(const std::string& profile) {
  std::string d = deployment(1);
  const std::string whole = "nvidia.com/gpu: 1";
  return d.replace(d.find(whole), whole.size(), "nvidia.com/mig-" + profile + ": 1");
}

const std::string kNodeOverlay =
    "---\napiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: slices}\n"
    "spec:\n  requirements:\n    - {key: node.kubernetes.io/instance-type, operator: In, values: "
    "[p4de.24xlarge]}\n  capacity: {nvidia.com/mig-1g.10gb: 56, nvidia.com/mig-3g.40gb: 16}\n";

}  // namespace

TEST_CASE("a model that does not fit the mixed-strategy MIG device its pods ask for is refused",
          "[scenario]") {
  // Llama 3.1 8B in bf16 needs 15 GiB of weights; a 1g.10gb device of an A100-80GB has 1/8 of
  // its memory. Known before launch from the request alone, with a NodeOverlay or without.
  const std::string settings = "    model: {name: llama-3.1-8b}\n";
  for (const std::string& overlay : {std::string(), kNodeOverlay}) {
    test::TempDir dir("mig-mixed");
    dir.write("manifests.yaml",
              labelled_pool("p4de.24xlarge", "nvidia.com/mig.config: all-1g.10gb") +
                  mig_deployment("1g.10gb") + overlay);
    const auto file =
        dir.write("scenario.yaml",
                  "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
                  "karpenter: {feature_gates: {node_overlay: true}}\n"
                  "gpu_operator: {mig_strategy: mixed}\nservices:\n  - deployment: llm\n"
                  "    traffic: {pattern: poisson, rps: 1}\n" +
                      settings);
    const std::string e = test::config_error([&] {
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    });
    INFO(e);
    CHECK(e.find(overlay.empty()
                     ? "scenario.yaml:9:12: services[0].model: llama-3.1-8b cannot be served on "
                       "a MIG 1g.10gb device of any GPU that has the profile: p4d.24xlarge, "
                       "p4de.24xlarge (on a MIG 1g.10gb device: "
                     : "scenario.yaml:9:12: services[0].model: llama-3.1-8b cannot be served on "
                       "any instance type llm's pods can be launched on: p4de.24xlarge (on a MIG "
                       "1g.10gb device: ") != std::string::npos);
    CHECK(e.find("p4de.24xlarge (on a MIG 1g.10gb device: llama-3.1-8b in bf16 needs 15.0 GiB "
                 "of weights per GPU") != std::string::npos);
  }
  // On a 3g.40gb device it fits.
  test::TempDir dir("mig-mixed-fits");
  dir.write("manifests.yaml", labelled_pool("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb") +
                                  mig_deployment("3g.40gb") + kNodeOverlay);
  const auto file =
      dir.write("scenario.yaml",
                "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
                "karpenter: {feature_gates: {node_overlay: true}}\n"
                "gpu_operator: {mig_strategy: mixed}\nservices:\n  - deployment: llm\n"
                "    traffic: {pattern: poisson, rps: 1}\n" +
                    settings);
  const ScenarioConfig ok =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  CHECK(ok.warnings.empty());
}
