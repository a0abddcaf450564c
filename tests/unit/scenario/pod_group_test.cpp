// PodGroups (scheduling.k8s.io/v1alpha2) and the pods that name them through
// spec.schedulingGroup.podGroupName: the API's validation, and the gangs no pool can hold.
#include <catch2/catch.hpp>
#include <string>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::string pod_group(const std::string& policy) {
  return "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: train}\n"
         "spec:\n  schedulingPolicy:\n" +
         policy;
}

std::string job(const std::string& group, std::int64_t gpus = 8) {
  return R"(apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      restartPolicy: Never
      schedulingGroup: {podGroupName: )" +
         group + R"(}
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: )" +
         std::to_string(gpus) + R"(}}
)";
}

std::string nodepool(const std::string& gpu_limit) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: ["p5"]}
  limits: {nvidia.com/gpu: )" +
         gpu_limit + R"(}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec: {role: r}
)";
}

ScenarioConfig load(const std::string& manifests) {
  test::TempDir dir("pod-group");
  dir.write("manifests.yaml", manifests);
  const auto file =
      dir.write("scenario.yaml", "name: g\nduration: 1h\nmanifests: [manifests.yaml]\n");
  return load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
}

std::vector<Warning> of_code(const ScenarioConfig& cfg, WarningCode code) {
  std::vector<Warning> out;
  for (const Warning& w : cfg.warnings)
    if (w.code == code) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("a PodGroup's gang minCount reaches the pods that name it", "[scenario]") {
  const ScenarioConfig cfg = load(nodepool("1000") + "---\n" +
                                  pod_group("    gang: {minCount: 4}\n") + "---\n" + job("train"));
  CHECK(cfg.pod_groups);
  REQUIRE(cfg.workloads.size() == 1);
  CHECK(cfg.workloads[0].pod.spec.pod_group == "train");
  CHECK(cfg.workloads[0].pod.spec.gang_min_count == 4);
  CHECK(of_code(cfg, WarningCode::PodGroupMissing).empty());
  CHECK(of_code(cfg, WarningCode::GangExceedsLimits).empty());
}

TEST_CASE("a basic PodGroup makes no gang", "[scenario]") {
  const ScenarioConfig cfg =
      load(nodepool("1000") + "---\n" + pod_group("    basic: {}\n") + "---\n" + job("train"));
  CHECK(cfg.workloads[0].pod.spec.gang_min_count == 0);
}

// The API server's validation of PodGroupSchedulingPolicy (+k8s:minimum=1 on minCount; a union
// of basic and gang).
TEST_CASE("PodGroup minCount below 1 and policy unions are refused with file line and field",
          "[scenario]") {
  CHECK(test::decode_error(pod_group("    gang: {minCount: 0}\n")) ==
        "test.yaml:6:22: spec.schedulingPolicy.gang.minCount: must be at least 1");
  CHECK(test::decode_error(pod_group("    gang: {minCount: -3}\n")) ==
        "test.yaml:6:22: spec.schedulingPolicy.gang.minCount: must be at least 1");
  CHECK(test::decode_error(pod_group("    basic: {}\n    gang: {minCount: 2}\n")) ==
        "test.yaml:6:5: spec.schedulingPolicy: exactly one of basic and gang must be set");
  CHECK(test::decode_error(pod_group("    {}\n")) ==
        "test.yaml:6:5: spec.schedulingPolicy: exactly one of basic and gang must be set");
}

// GangScheduling's PreEnqueue: a pod whose PodGroup does not exist waits until it appears.
TEST_CASE("pods naming a missing PodGroup wait with a warning", "[scenario]") {
  const ScenarioConfig cfg = load(nodepool("1000") + "---\n" + job("nowhere"));
  CHECK(cfg.workloads[0].pod.spec.gang_min_count == PodSpec::kNoPodGroup);
  const auto w = of_code(cfg, WarningCode::PodGroupMissing);
  REQUIRE(w.size() == 1);
  CHECK(w[0].message.find("no PodGroup \"nowhere\" in namespace default") != std::string::npos);
}

TEST_CASE("a gang larger than every NodePool's limits warns", "[scenario]") {
  // Four pods of 8 GPUs need 32; the pool allows 24.
  const ScenarioConfig cfg = load(nodepool("24") + "---\n" +
                                  pod_group("    gang: {minCount: 4}\n") + "---\n" + job("train"));
  const auto w = of_code(cfg, WarningCode::GangExceedsLimits);
  REQUIRE(w.size() == 1);
  CHECK(w[0].message.find("minCount 4 pods of Job train need more than every NodePool's") !=
        std::string::npos);
  // 32 fit a limit of 32.
  CHECK(of_code(load(nodepool("32") + "---\n" + pod_group("    gang: {minCount: 4}\n") + "---\n" +
                     job("train")),
                WarningCode::GangExceedsLimits)
            .empty());
}

TEST_CASE("an event cannot apply a PodGroup", "[scenario]") {
  test::TempDir dir("pod-group-event");
  dir.write("manifests.yaml", nodepool("1000"));
  dir.write("later.yaml", pod_group("    gang: {minCount: 2}\n"));
  const auto file = dir.write("scenario.yaml",
                              "name: g\nduration: 1h\nmanifests: [manifests.yaml]\n"
                              "events:\n  - {at: 1m, apply: later.yaml}\n");
  CHECK(test::config_error([&] {
          load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
        }).find("an event cannot apply a PodGroup yet; put it in manifests") != std::string::npos);
}

// scheduler-plugins' coscheduling PodGroup (scheduling.x-k8s.io/v1alpha1) is another API.
TEST_CASE("a coscheduling PodGroup is warned as not modelled", "[scenario]") {
  auto d = test::decode(
      "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: pg}\n"
      "spec: {minMember: 4, scheduleTimeoutSeconds: 60}\n");
  CHECK(d->set.pod_groups.empty());
  const std::vector<Warning> w = d->warnings.take();
  REQUIRE(w.size() == 1);
  CHECK(w[0].code == WarningCode::UnmodelledKind);
  CHECK(w[0].message.find("coscheduling PodGroup is not modelled") != std::string::npos);
}
