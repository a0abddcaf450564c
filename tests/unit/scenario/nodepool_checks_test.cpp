// Checks against the NodePools at load time (issue 12, findings 2 and 3): what validate says is
// what the run would hit.
#include "fleetsim/scenario/nodepool_checks.hpp"

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

TEST_CASE("a model keeps its Deployment off GPUs too small to hold it (issue 12, finding 3)",
          "[scenario]") {
  // 8B parameters of fp16 are 16e9 bytes; at vLLM's default gpu_memory_utilization of 0.9 one
  // GPU needs 16e9 / (0.9 × 2^20) = 16954.1 → 16955 MiB: the T4's 16384 MiB cannot, the A10G's
  // 22888 can.
  Scenario s(kGpuPool + deployment(1), "    model: {parameters: 8B, dtype: fp16}\n");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.warnings.size() == 1);
  CHECK(cfg.warnings[0].where.to_string() == s.file.string() + ":7:12");
  CHECK(cfg.warnings[0].field == "services[0].model");
  CHECK(cfg.warnings[0].message ==
        "the model (8B fp16) needs 16955 MiB per GPU with 1 GPU per pod at "
        "gpu_memory_utilization 0.9, so its pods keep off t4 (16384 MiB): g4dn.12xlarge, "
        "g4dn.16xlarge, g4dn.2xlarge, g4dn.4xlarge, g4dn.8xlarge and 2 more, as a nodeAffinity "
        "karpenter.k8s.aws/instance-gpu-memory Gt 16954 would");
  // The run's solver sees it as the pods' own node requirement.
  const Requirement* gpu_memory =
      cfg.workloads.at(0).pod.spec.node_requirements.get(label::kGpuMemory);
  REQUIRE(gpu_memory != nullptr);
  CHECK(gpu_memory->allows("16955"));
  CHECK_FALSE(gpu_memory->allows("16384"));
}

TEST_CASE("a model's memory is shared by the pod's GPUs, and a model no GPU holds is refused",
          "[scenario]") {
  // 30Gi over 2 GPUs at 0.9: 30720 / 1.8 = 17066.7 → 17067 MiB per GPU.
  Scenario two(kGpuPool + deployment(2), "    model: {memory: 30Gi}\n");
  ScenarioConfig cfg = two.load();
  REQUIRE(cfg.warnings.size() == 1);
  CHECK_THAT(cfg.warnings[0].message,
             Catch::StartsWith("the model (30Gi) needs 17067 MiB per GPU with 2 GPUs per pod at "
                               "gpu_memory_utilization 0.9, so its pods keep off t4 (16384 MiB): "
                               "g4dn.12xlarge, g4dn.metal, "));
  // A user's own utilization: at 0.5, 8B fp16 needs 30518 MiB, more than any A10G.
  CHECK(Scenario(kGpuPool + deployment(1),
                 "    model: {parameters: 8B, dtype: fp16, gpu_memory_utilization: 0.5}\n")
            .error()
            .ends_with(
                "7:12: services[0].model: the model (8B fp16) needs 30518 MiB per GPU with 1 GPU "
                "per pod "
                "at gpu_memory_utilization 0.5; no instance type its NodePools allow has that (the "
                "largest: 22888 MiB, a10g on g5.12xlarge): ask for more GPUs per pod (tensor "
                "parallelism) or allow larger ones"));
  // Pods without a GPU: an llm service time is refused at the service; another service time
  // still may not name a model's memory.
  CHECK_THAT(Scenario(kGpuPool + deployment(0), "    model: {memory: 16Gi}\n").error(),
             Catch::EndsWith("5:5: services[0].serving.service_time: the llm service time runs "
                             "on a GPU, but the pods of Deployment \"llm\" request none; give its "
                             "container resources.limits nvidia.com/gpu (or another accelerator), "
                             "or a fixed, exponential or lognormal service time"));
  CHECK_THAT(Scenario(kGpuPool + deployment(0),
                      "    model: {memory: 16Gi}\n"
                      "    serving: {service_time: {model: fixed, duration: 1s}}\n")
                 .error(),
             Catch::EndsWith("7:12: services[0].model: Deployment llm requests no nvidia.com/gpu; "
                             "a model's memory is checked against NVIDIA GPUs only"));
}

TEST_CASE("a service's model is given by parameters and dtype, or by its memory", "[scenario]") {
  auto error = [](const std::string& model) {
    const std::string e = Scenario(kGpuPool + deployment(1), "    model: " + model + "\n").error();
    return e.substr(e.find("scenario.yaml:") + 14);
  };
  CHECK(error("{parameters: 8B, dtype: fp61}") ==
        "7:36: services[0].model.dtype: unknown dtype \"fp61\"; expected one of fp32, fp16, bf16, "
        "fp8, int8, fp4, int4, nf4; did you mean \"fp16\"?");
  CHECK(error("{parameters: 8GB, dtype: fp16}") ==
        "7:25: services[0].model.parameters: expected a parameter count such as 8B, 1.5B or "
        "350M, got \"8GB\"");
  CHECK(error("{parameters: 8B}") == "7:12: services[0].model.dtype: required field is missing");
  CHECK(error("{memory: 16Gi, parameters: 8B, dtype: fp16}") ==
        "7:21: services[0].model.memory: give either memory or parameters and dtype, not both");
  CHECK(error("{memory: 16Gi, gpu_memory_utilization: 1.5}") ==
        "7:51: services[0].model.gpu_memory_utilization: must be above 0 and at most 1, got 1.5");
  CHECK(error("{}") ==
        "7:12: services[0].model: a model needs parameters and dtype (8B, fp16), or its memory "
        "(16Gi)");
}

TEST_CASE("a workload no NodePool can host is named with each pool's reason (issue 12, finding 2)",
          "[scenario]") {
  // The finding: a nodeSelector no NodePool sets passed validate, and the run missed every SLO.
  Scenario s(kGpuPool + deployment(1, "      nodeSelector: {node-type: gpu-inference}\n"), "");
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
