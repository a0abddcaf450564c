// CapacityBuffer manifests (autoscaling.x-k8s.io/v1beta1): the fields, the CRD's rules, the
// targets they name and Karpenter's CapacityBuffer feature gate.
#include <catch2/catch.hpp>
#include <string>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::string buffer(const std::string& spec) {
  return "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\n"
         "metadata: {name: spare}\nspec:\n" +
         spec;
}

const std::string kScalable = "  scalableRef: {apiGroup: apps, kind: Deployment, name: web}\n";

const std::string kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 1Gi}}
)";

// Loads a Karpenter scenario with the web Deployment and `manifest`.
ScenarioConfig load(const std::string& manifest, const std::string& karpenter = "") {
  test::TempDir dir("capacity-buffer");
  dir.write("manifests.yaml", kDeployment + "---\n" + manifest);
  const auto file = dir.write("scenario.yaml",
                              "name: b\nduration: 1h\nmanifests: [manifests.yaml]\n" + karpenter);
  return load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
}

std::vector<Warning> buffer_warnings(const ScenarioConfig& cfg) {
  std::vector<Warning> out;
  for (const Warning& w : cfg.warnings)
    if (w.code == WarningCode::CapacityBufferIgnored) out.push_back(w);
  return out;
}

std::string load_error(const std::string& manifest) {
  return test::config_error([&] { load(manifest); });
}

}  // namespace

TEST_CASE("a CapacityBuffer's fields are read", "[scenario]") {
  auto d =
      test::decode(buffer(kScalable + "  percentage: 20\n  replicas: 1\n  limits: {cpu: \"4\"}\n"
                                      "  provisioningStrategy: buffer.x-k8s.io/active-capacity\n"));
  REQUIRE(d->set.capacity_buffers.size() == 1);
  const CapacityBuffer& b = d->set.capacity_buffers[0];
  CHECK(b.name == "spare");
  CHECK(b.namespace_name == "default");
  CHECK(b.scalable_ref->name == "web");
  CHECK(b.percentage == 20);
  CHECK(b.replicas == 1);
  CHECK(b.limits->values[resource::kCpu] == 4000);
  CHECK(b.provisioning_strategy == "buffer.x-k8s.io/active-capacity");
}

TEST_CASE("CapacityBuffer bad sizes name file line and field", "[scenario]") {
  CHECK(test::decode_error(buffer(kScalable + "  percentage: 150\n")) ==
        "test.yaml:6:15: spec.percentage: 150 is out of range [0, 100]");
  CHECK(test::decode_error(buffer(kScalable + "  percentage: -1\n")) ==
        "test.yaml:6:15: spec.percentage: -1 is out of range [0, 100]");
  CHECK(test::decode_error(buffer(kScalable + "  replicas: -1\n")) ==
        "test.yaml:6:13: spec.replicas: -1 is out of range [0, 2147483647]");
}

// The CRD's x-kubernetes-validations.
TEST_CASE("CapacityBuffer references follow the CRD rules", "[scenario]") {
  CHECK(test::decode_error(buffer(kScalable + "  podTemplateRef: {name: t}\n  replicas: 1\n")) ==
        "test.yaml:5:3: spec: You must define either PodTemplateRef or ScalableRef, but not both");
  CHECK(test::decode_error(buffer("  podTemplateRef: {name: t}\n")) ==
        "test.yaml:5:3: spec: If podTemplateRef is set, replicas or limits must also be set");
  CHECK(test::decode_error(
            buffer("  scalableRef: {apiGroup: apps, kind: StatefulSet, name: db}\n")) ==
        "test.yaml:5:39: spec.scalableRef.kind: a scalableRef to apps/StatefulSet is not modelled; "
        "fleetsim scales Deployments (apiGroup: apps, kind: Deployment)");
}

TEST_CASE("a CapacityBuffer whose scalableRef names no Deployment is refused", "[scenario]") {
  const std::string error =
      load_error(buffer("  scalableRef: {apiGroup: apps, kind: Deployment, name: nothere}\n"));
  CHECK(error.find("manifests.yaml:16:18: ") != std::string::npos);
  CHECK(error.find("spec.scalableRef.name: CapacityBuffer \"spare\": no Deployment named "
                   "\"nothere\" in namespace \"default\"") != std::string::npos);
}

// Karpenter's FEATURE_GATES default CapacityBuffer=false (pkg/operator/options): the buffer is
// ignored, and said so.
TEST_CASE("a CapacityBuffer with Karpenter's gate off is a warning naming the gate", "[scenario]") {
  const ScenarioConfig off = load(buffer(kScalable + "  replicas: 2\n"));
  REQUIRE(off.capacity_buffers.size() == 1);
  REQUIRE(buffer_warnings(off).size() == 1);
  CHECK(buffer_warnings(off)[0].field == "CapacityBuffer/spare");
  CHECK(buffer_warnings(off)[0].message.find("karpenter.feature_gates.capacity_buffer: true") !=
        std::string::npos);
  const ScenarioConfig on = load(buffer(kScalable + "  replicas: 2\n"),
                                 "karpenter: {feature_gates: {capacity_buffer: true}}\n");
  CHECK(on.karpenter.capacity_buffer);
  // With the gate on the buffer runs: nothing to warn about.
  CHECK(buffer_warnings(on).empty());
}

// Karpenter copies provisioningStrategy into the status (controller.go) and provisions every
// buffer alike: another strategy is said to be read as the active one.
TEST_CASE("a CapacityBuffer's other provisioningStrategy under Karpenter is a warning",
          "[scenario]") {
  const ScenarioConfig cfg =
      load(buffer(kScalable + "  replicas: 2\n  provisioningStrategy: example.com/other\n"),
           "karpenter: {feature_gates: {capacity_buffer: true}}\n");
  REQUIRE(buffer_warnings(cfg).size() == 1);
  CHECK(buffer_warnings(cfg)[0].field == "CapacityBuffer/spare.provisioningStrategy");
  CHECK(buffer_warnings(cfg)[0].message.find("provisioned as buffer.x-k8s.io/active-capacity") !=
        std::string::npos);
}

// The Cluster Autoscaler runs buffers only with --capacity-buffer-controller-enabled and
// --capacity-buffer-pod-injection-enabled (flags.go: both default false), and injects pods for
// the active-capacity strategy only (builder/autoscaler.go).
TEST_CASE("a CapacityBuffer under the Cluster Autoscaler needs both of its flags", "[scenario]") {
  const std::string groups =
      "---\napiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
      "managedNodeGroups:\n  - {name: cpu, instanceType: m5.large, minSize: 0, maxSize: 2}\n";
  const std::string manifest = buffer(kScalable + "  replicas: 2\n") + groups;
  const ScenarioConfig none = load(manifest, "provisioner: cluster-autoscaler\n");
  REQUIRE(buffer_warnings(none).size() == 1);
  CHECK(buffer_warnings(none)[0].message.find(
            "without cluster_autoscaler.capacity_buffer_controller_enabled") != std::string::npos);
  const ScenarioConfig one = load(manifest,
                                  "provisioner: cluster-autoscaler\ncluster_autoscaler: "
                                  "{capacity_buffer_controller_enabled: true}\n");
  REQUIRE(buffer_warnings(one).size() == 1);
  CHECK(buffer_warnings(one)[0].message.find(
            "without cluster_autoscaler.capacity_buffer_pod_injection_enabled") !=
        std::string::npos);
  const std::string both =
      "provisioner: cluster-autoscaler\ncluster_autoscaler: {capacity_buffer_controller_enabled: "
      "true, capacity_buffer_pod_injection_enabled: true}\n";
  CHECK(buffer_warnings(load(manifest, both)).empty());
  const ScenarioConfig other = load(
      buffer(kScalable + "  replicas: 2\n  provisioningStrategy: example.com/other\n") + groups,
      both);
  REQUIRE(buffer_warnings(other).size() == 1);
  CHECK(buffer_warnings(other)[0].message.find("injects pods only for "
                                               "buffer.x-k8s.io/active-capacity") !=
        std::string::npos);
}
