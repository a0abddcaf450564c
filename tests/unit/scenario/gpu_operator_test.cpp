// The gpu_operator section and the NVIDIA device plugin's ConfigMap (issue 26): the config schema
// of api/config/v1 (replicas.go, sharing.go, config.go), what the plugin refuses, and the devices
// each GPU then offers.
#include <catch2/catch.hpp>

#include "fleetsim/scenario/gpu_operator_decoder.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

const std::string kPool =
    "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n"
    "  template:\n    metadata:\n      labels: {LABELS}\n    spec:\n"
    "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
    "      requirements:\n"
    "        - {key: node.kubernetes.io/instance-type, operator: In, values: [TYPE]}\n"
    "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\n"
    "spec: {role: test}\n---\n";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// A ConfigMap whose config "any" holds `sharing` (lines indented 4 under its "|").
std::string config_map(const std::string& body) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dp}\ndata:\n  any: |\n"
         "    version: v1\n" +
         body;
}

struct OperatorScenario : test::ManifestScenario {
  OperatorScenario(const std::string& type, const std::string& labels,
                   const std::string& config_map_text, const std::string& settings)
      : ManifestScenario(
            "gpu-operator",
            replace_all(replace_all(kPool, "LABELS", labels), "TYPE", type) + config_map_text,
            settings) {}
};

const std::string kSettings = "gpu_operator: {device_plugin_config: dp}\n";
const std::string kTimeSliced =
    "    sharing:\n      timeSlicing:\n        resources:\n"
    "          - name: nvidia.com/gpu\n            replicas: 4\n";

}  // namespace

TEST_CASE("the device plugin's time-slicing config is read from its ConfigMap", "[scenario]") {
  const ScenarioConfig cfg = OperatorScenario("g6e.xlarge", "nvidia.com/device-plugin.config: any",
                                              config_map(kTimeSliced), kSettings)
                                 .load();
  CHECK(cfg.warnings.empty());
  REQUIRE(cfg.gpu_operator.device_plugin_configs.size() == 1);
  const DevicePluginConfig& c = cfg.gpu_operator.device_plugin_configs[0];
  CHECK(c.name == "any");
  CHECK(c.sharing == GpuSharingKind::TimeSlicing);
  CHECK_FALSE(c.fail_requests_greater_than_one);  // off unless set, for time-slicing
  REQUIRE(c.resources.size() == 1);
  CHECK(c.resources[0].replicas == 4);
  const InstanceType& g6e = *cfg.catalog->find("g6e.xlarge");
  const std::vector<GpuDevice> d =
      gpu_devices(g6e, {{"nvidia.com/device-plugin.config", "any"}}, cfg.gpu_operator);
  REQUIRE(d.size() == 1);
  CHECK(d[0].resource == "nvidia.com/gpu");
  CHECK(d[0].per_gpu == 4);
}

TEST_CASE("MPS fails requests above one by default and is refused over MIG", "[scenario]") {
  // config.go: "Preserve the historical MPS behavior unless the config explicitly relaxes it".
  const std::string mps =
      "    sharing:\n      mps:\n        resources:\n"
      "          - name: nvidia.com/gpu\n            replicas: 2\n";
  const ScenarioConfig cfg =
      OperatorScenario("g6e.xlarge", "team: ml", config_map(mps),
                       "gpu_operator: {device_plugin_config: dp, device_plugin_default: any}\n")
          .load();
  REQUIRE(cfg.gpu_operator.device_plugin_configs.size() == 1);
  CHECK(cfg.gpu_operator.device_plugin_configs[0].sharing == GpuSharingKind::Mps);
  CHECK(cfg.gpu_operator.device_plugin_configs[0].fail_requests_greater_than_one);
  // plugin/mps.go: "sharing using MPS is not supported for MIG devices".
  const std::string e =
      OperatorScenario("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb", config_map(mps),
                       "gpu_operator: {device_plugin_config: dp, device_plugin_default: any}\n")
          .error();
  CHECK(e.find("sharing using MPS is not supported for MIG devices") != std::string::npos);
}

TEST_CASE("replicas below two are refused at their line in the ConfigMap", "[scenario]") {
  for (const std::string n : {"0", "-1", "1"}) {
    INFO(n);
    const std::string e =
        OperatorScenario("g6e.xlarge", "team: ml",
                         config_map(replace_all(kTimeSliced, "replicas: 4", "replicas: " + n)),
                         kSettings)
            .error();
    // The ConfigMap starts at line 18 of the manifests; its config's "replicas" is on line 28.
    CHECK(e.find("manifests.yaml:28:23: data.any.sharing.timeSlicing.resources[0].replicas: ") !=
          std::string::npos);
    CHECK(e.find("number of replicas must be >= 2 (the device plugin refuses " + n + ")") !=
          std::string::npos);
  }
}

TEST_CASE("a config label naming no config and an unknown MIG strategy are refused", "[scenario]") {
  const std::string e = OperatorScenario("g6e.xlarge", "nvidia.com/device-plugin.config: nope",
                                         config_map(kTimeSliced), kSettings)
                            .error();
  CHECK(e.find("nvidia.com/device-plugin.config \"nope\" names no config of the device plugin's "
               "ConfigMap") != std::string::npos);
  CHECK(OperatorScenario("g6e.xlarge", "team: ml", "", "gpu_operator: {mig_strategy: all}\n")
            .error()
            .find("unknown MIG strategy \"all\"; expected single or mixed") != std::string::npos);
  CHECK(OperatorScenario("g6e.xlarge", "team: ml", config_map(kTimeSliced),
                         "gpu_operator: {device_plugin_config: other}\n")
            .error()
            .find("no ConfigMap named \"other\" among the manifests") != std::string::npos);
}

TEST_CASE("a config label without the device plugin's ConfigMap warns", "[scenario]") {
  // The ConfigMap itself is inert input (no unmodelled-kind warning) when nothing names it.
  const ScenarioConfig cfg = OperatorScenario("g6e.xlarge", "nvidia.com/device-plugin.config: any",
                                              config_map(kTimeSliced), "")
                                 .load();
  REQUIRE(cfg.warnings.size() == 1);
  CHECK(cfg.warnings[0].code == WarningCode::UnusedSettings);
  CHECK(cfg.gpu_operator.device_plugin_configs.empty());
  CHECK(cfg.warnings[0].message ==
        "NodePool gpu's nodes are labelled nvidia.com/device-plugin.config, but "
        "gpu_operator.device_plugin_config names no ConfigMap of the device plugin's configs: the "
        "label selects nothing and its GPUs are not shared");
}

TEST_CASE("the MIG strategy decides the devices of a p4de's all-3g.40gb GPUs", "[scenario]") {
  ScenarioConfig cfg =
      OperatorScenario("p4de.24xlarge", "nvidia.com/mig.config: all-3g.40gb", "", "").load();
  const InstanceType& p4de = *cfg.catalog->find("p4de.24xlarge");
  const Labels labels{{"nvidia.com/mig.config", "all-3g.40gb"}};
  std::vector<GpuDevice> single = gpu_devices(p4de, labels, cfg.gpu_operator);
  REQUIRE(single.size() == 1);
  CHECK(single[0].resource == "nvidia.com/gpu");
  CHECK(single[0].per_gpu == 2);
  cfg.gpu_operator.mig_strategy = MigStrategy::Mixed;
  std::vector<GpuDevice> mixed = gpu_devices(p4de, labels, cfg.gpu_operator);
  REQUIRE(mixed.size() == 1);
  CHECK(mixed[0].resource == "nvidia.com/mig-3g.40gb");
  CHECK(mixed[0].per_gpu == 2);
  std::vector<GpuDevice> balanced =
      gpu_devices(p4de, {{"nvidia.com/mig.config", "all-balanced"}}, cfg.gpu_operator);
  REQUIRE(balanced.size() == 3);
  CHECK(balanced[0].resource == "nvidia.com/mig-1g.10gb");
  CHECK(balanced[0].per_gpu == 2);
  CHECK(balanced[2].resource == "nvidia.com/mig-3g.40gb");
  CHECK(balanced[2].per_gpu == 1);
}

TEST_CASE("the device plugin's admission message for two shared GPUs", "[scenario]") {
  // internal/rm/rm.go ValidateRequest.
  NodeGpuSetup setup{.fail_requests_greater_than_one = true, .replicated = resource::kNvidiaGpu};
  Resources two;
  two[resource::kNvidiaGpu] = 2;
  CHECK(gpu_admission_error(setup, two) ==
        "maximum request size for shared resources is 1; found 2");
  Resources one;
  one[resource::kNvidiaGpu] = 1;
  CHECK(gpu_admission_error(setup, one).empty());
  setup.fail_requests_greater_than_one = false;
  CHECK(gpu_admission_error(setup, two).empty());
}
