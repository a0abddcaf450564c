// DRA manifests (issue 26 part 5): resource.k8s.io/v1 DeviceClass, ResourceClaim and
// ResourceClaimTemplate as the NVIDIA DRA driver's docs write them, the CEL subset their
// selectors are read in, pods' spec.resourceClaims resolved at load, and bad input at its line.
#include "fleetsim/scenario/dra_decoder.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/catalog/gpu_sharing.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

const std::string& kTemplate = test::kSingleGpuClaimTemplate;

const std::string kMigClaim = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: mig-pair}
spec:
  devices:
    requests:
      - name: mig
        exactly:
          deviceClassName: mig.nvidia.com
          count: 2
          selectors:
            - cel:
                expression: "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"
)";

std::string deployment(const std::string& claims, const std::string& container_claims = "gpu") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n"
         "  replicas: 2\n  selector: {matchLabels: {app: llm}}\n  template:\n"
         "    metadata: {labels: {app: llm}}\n    spec:\n"
         "      containers:\n        - name: vllm\n          image: vllm\n"
         "          resources:\n            requests: {cpu: \"1\"}\n"
         "            claims: [{name: " +
         container_claims + "}]\n      resourceClaims:\n" + claims;
}

struct DraScenario : test::ManifestScenario {
  explicit DraScenario(const std::string& manifests) : ManifestScenario("dra", manifests) {}
};

bool has_warning(const ScenarioConfig& cfg, WarningCode code, const std::string& part) {
  for (const Warning& w : cfg.warnings)
    if (w.code == code && (w.message + w.field).find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the CEL subset reads the NVIDIA driver's selectors in either quote", "[scenario][dra]") {
  const auto gpu = parse_cel_selector(
      "device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].type == "
      "\"gpu\"");
  REQUIRE(gpu);
  CHECK(gpu->driver == "gpu.nvidia.com");
  CHECK(gpu->type == "gpu");
  CHECK(gpu->profile.empty());
  const auto mig = parse_cel_selector(
      "device.attributes['gpu.nvidia.com']['profile'] == '1g.10gb' && "
      "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-40GB'");
  REQUIRE(mig);
  CHECK(mig->profile == "1g.10gb");
  CHECK(mig->product_name == "NVIDIA A100-SXM4-40GB");
  // Beyond the subset: other attributes, other operators, capacity, ||.
  CHECK_FALSE(parse_cel_selector("device.attributes['gpu.nvidia.com'].index == 0"));
  CHECK_FALSE(
      parse_cel_selector("device.capacity['gpu.nvidia.com'].memory.compareTo("
                         "quantity('40Gi')) >= 0"));
  CHECK_FALSE(parse_cel_selector("device.driver == 'a' || device.driver == 'b'"));
  CHECK_FALSE(parse_cel_selector("device.driver != 'a'"));
  // Two values for one attribute match nothing.
  const auto both = parse_cel_selector("device.driver == 'a' && device.driver == 'b'");
  REQUIRE(both);
  CHECK(both->impossible);
}

TEST_CASE("a Deployment's template claim resolves against its ResourceClaimTemplate and class",
          "[scenario][dra]") {
  DraScenario s(kTemplate + "---\n" +
                deployment("        - {name: gpu, resourceClaimTemplateName: single-gpu}\n"));
  const ScenarioConfig cfg = s.load();
  REQUIRE(cfg.workloads.size() == 1);
  const auto& claims = cfg.workloads[0].pod.spec.resource_claims;
  REQUIRE(claims.size() == 1);
  CHECK(claims[0].name == "gpu");
  CHECK(claims[0].shared.empty());
  CHECK(claims[0].source == "single-gpu");
  REQUIRE(claims[0].requests.size() == 1);
  const DraRequest& r = claims[0].requests[0];
  CHECK(r.device_class == "gpu.nvidia.com");
  CHECK(r.count == 1);
  CHECK_FALSE(r.all);
  CHECK(r.match == DraMatch{.driver = "gpu.nvidia.com", .type = "gpu"});
}

TEST_CASE("a shared MIG claim carries its class's and its own selectors", "[scenario][dra]") {
  DraScenario s(kMigClaim + "---\n" +
                deployment("        - {name: gpu, resourceClaimName: mig-pair}\n"));
  const ScenarioConfig cfg = s.load();
  const auto& claims = cfg.workloads.at(0).pod.spec.resource_claims;
  REQUIRE(claims.size() == 1);
  CHECK(claims[0].shared == "default/mig-pair");
  CHECK(claims[0].requests.at(0).count == 2);
  CHECK(claims[0].requests.at(0).match ==
        DraMatch{.driver = "gpu.nvidia.com", .type = "mig", .profile = "3g.40gb"});
}

TEST_CASE("v1beta1 requests carry the exact fields on the request", "[scenario][dra]") {
  const std::string beta = R"(apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: all-gpus}
spec:
  spec:
    devices:
      requests:
        - {name: gpus, deviceClassName: gpu.nvidia.com, allocationMode: All}
)";
  DraScenario s(beta + "---\n" +
                deployment("        - {name: gpu, resourceClaimTemplateName: all-gpus}\n"));
  const ScenarioConfig cfg = s.load();
  CHECK(cfg.workloads.at(0).pod.spec.resource_claims.at(0).requests.at(0).all);
}

TEST_CASE("bad DRA input exits with the file line and column", "[scenario][dra]") {
  SECTION("an unknown deviceClassName") {
    std::string t = kTemplate;
    t.replace(t.find("deviceClassName: gpu.nvidia.com"), 31, "deviceClassName: gpu.nvidia.co");
    DraScenario s(t + "---\n" +
                  deployment("        - {name: gpu, resourceClaimTemplateName: single-gpu}\n"));
    CHECK_THAT(s.error(), Catch::Contains("manifests.yaml:10:30") &&
                              Catch::Contains("unknown DeviceClass \"gpu.nvidia.co\"") &&
                              Catch::Contains("did you mean \"gpu.nvidia.com\""));
  }
  SECTION("a pod claim naming a missing template") {
    DraScenario s(kTemplate + "---\n" +
                  deployment("        - {name: gpu, resourceClaimTemplateName: one-gpu}\n"));
    CHECK_THAT(s.error(), Catch::Contains("manifests.yaml:28:50") &&
                              Catch::Contains("no ResourceClaimTemplate \"one-gpu\""));
  }
  SECTION("a container claim naming no pod claim") {
    DraScenario s(
        kTemplate + "---\n" +
        deployment("        - {name: gpu, resourceClaimTemplateName: single-gpu}\n", "gpus"));
    CHECK_THAT(s.error(), Catch::Contains("manifests.yaml:26:29") &&
                              Catch::Contains("claim \"gpus\" is none of the pod's"));
  }
  SECTION("a count of zero") {
    std::string c = kMigClaim;
    c.replace(c.find("count: 2"), 8, "count: 0");
    CHECK_THAT(test::decode_error(c),
               Catch::Contains("test.yaml:10:18") && Catch::Contains("count must be at least 1"));
  }
  SECTION("an unknown allocationMode") {
    std::string c = kMigClaim;
    c.replace(c.find("count: 2"), 8, "allocationMode: Exact");
    CHECK_THAT(test::decode_error(c), Catch::Contains("test.yaml:10:27") &&
                                          Catch::Contains("unknown allocationMode \"Exact\""));
  }
  SECTION("v1's deviceClassName on the request") {
    CHECK_THAT(test::decode_error("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                                  "metadata: {name: c}\nspec:\n  devices:\n    requests:\n"
                                  "      - {name: g, deviceClassName: gpu.nvidia.com}\n"),
               Catch::Contains("goes under `exactly:`"));
  }
  SECTION("an API version fleetsim does not read") {
    CHECK_THAT(test::decode_error("apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\n"
                                  "metadata: {name: c}\nspec: {}\n"),
               Catch::Contains("test.yaml:1:13") && Catch::Contains("resource.k8s.io/v1alpha3"));
  }
}

TEST_CASE("DRA fields beyond the model are warned about", "[scenario][dra]") {
  const std::string claim = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: odd}
spec:
  devices:
    requests:
      - name: any
        firstAvailable:
          - {name: big, deviceClassName: gpu.nvidia.com}
          - {name: small, deviceClassName: mig.nvidia.com}
      - name: admin
        exactly:
          deviceClassName: gpu.nvidia.com
          adminAccess: true
          selectors:
            - cel: {expression: "device.attributes['gpu.nvidia.com'].index == 0"}
    constraints:
      - {matchAttribute: gpu.nvidia.com/parentUUID}
)";
  auto d = test::decode(claim);
  const std::vector<Warning> warnings = d->warnings.take();
  auto has = [&](const std::string& part) {
    for (const Warning& w : warnings)
      if (w.code == WarningCode::DraNotModelled && w.message.find(part) != std::string::npos)
        return true;
    return false;
  };
  CHECK(has("firstAvailable is not modelled beyond its first subrequest"));
  CHECK(has("adminAccess is not modelled"));
  CHECK(has("CEL selector \"device.attributes['gpu.nvidia.com'].index == 0\" is beyond"));
  CHECK(has("devices.constraints is not modelled"));
  REQUIRE(d->set.resource_claims.size() == 1);
  CHECK(d->set.resource_claims[0].requests.at(0).device_class == "gpu.nvidia.com");
}

TEST_CASE("a DaemonSet's claims are warned about and dropped", "[scenario][dra]") {
  const std::string ds =
      "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n"
      "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
      "    spec:\n      containers: [{name: c, image: i}]\n"
      "      resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}]\n";
  DraScenario s(kTemplate + "---\n" + ds);
  const ScenarioConfig cfg = s.load();
  REQUIRE(cfg.daemonsets.size() == 1);
  CHECK(cfg.daemonsets[0].pod.spec.resource_claims.empty());
  CHECK(has_warning(cfg, WarningCode::DraNotModelled, "a DaemonSet's claims are not modelled"));
}

TEST_CASE("nodes labelled for the DRA kubelet plugin publish GPUs or MIG devices in name order",
          "[scenario][dra]") {
  DraScenario s(kTemplate);
  const ScenarioConfig cfg = s.load();
  const InstanceType& g5 = *cfg.catalog->find("g5.12xlarge");
  const InstanceType& p4de = *cfg.catalog->find("p4de.24xlarge");
  const Labels dra{{"nvidia.com/dra-kubelet-plugin", "true"}};
  // Without the label the driver does not run there.
  CHECK(nvidia_dra_devices(g5, {}, cfg.gpu_operator.mig_layouts).empty());
  const std::vector<DraDevice> gpus = nvidia_dra_devices(g5, dra, cfg.gpu_operator.mig_layouts);
  REQUIRE(gpus.size() == 4);
  CHECK(gpus[0] == DraDevice{.name = "gpu-0",
                             .driver = "gpu.nvidia.com",
                             .type = "gpu",
                             .product_name = "NVIDIA A10G"});
  CHECK(gpus[3].name == "gpu-3");
  Labels mig = dra;
  mig["nvidia.com/mig.config"] = "all-3g.40gb";
  // Read once a layout label asks for them (as the checks at load do).
  const std::vector<MigLayout> layouts = load_mig_layouts(cfg.catalog_dir);
  const std::vector<DraDevice> slices = nvidia_dra_devices(p4de, mig, layouts);
  REQUIRE(slices.size() == 16);  // 8 A100 80GB, two 3g.40gb each
  CHECK(slices[0].name == "gpu-0-mig-0");
  CHECK(slices[1].name == "gpu-0-mig-1");
  CHECK(slices[2].name == "gpu-1-mig-0");
  CHECK(slices[0].type == "mig");
  CHECK(slices[0].profile == "3g.40gb");
  CHECK(slices[0].product_name == "NVIDIA A100-SXM4-80GB");
  // The device plugin advertises none of the GPUs where the driver runs.
  ResourceRegistry registry;
  Resources allocatable;
  allocatable[resource::kNvidiaGpu] = 4;
  const NodeGpuSetup setup = node_gpu_setup(g5, dra, allocatable, cfg.gpu_operator, registry);
  REQUIRE(setup.allocatable);
  CHECK((*setup.allocatable)[resource::kNvidiaGpu] == 0);
  CHECK(setup.dra_devices == gpus);
}

TEST_CASE("a served model on pods that take their GPU through a claim is refused",
          "[scenario][dra]") {
  test::TempDir dir("dra-served");
  dir.write("manifests.yaml",
            kTemplate + "---\n" +
                deployment("        - {name: gpu, resourceClaimTemplateName: single-gpu}\n"));
  const auto file = dir.write(
      "scenario.yaml",
      "name: s\nduration: 1h\nmanifests: [manifests.yaml]\nservices:\n  - deployment: llm\n"
      "    traffic: {pattern: poisson, rps: 1, tokens: {input: 512, output: 128}}\n"
      "    model: {name: llama-3.1-8b}\n");
  CHECK_THAT(test::config_error([&] {
               load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
             }),
             Catch::Contains("scenario.yaml:7:12") &&
                 Catch::Contains("takes its GPUs through ResourceClaims"));
}

TEST_CASE("a ResourceSlice and a NodeOverlay beside DRA pods are warned about", "[scenario][dra]") {
  const std::string slice =
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
      "spec: {driver: gpu.nvidia.com, pool: {name: p, resourceSliceCount: 1}, sharedCounters: "
      "[]}\n---\n";
  const std::string overlay =
      "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: o}\nspec:\n"
      "  requirements:\n    - {key: node.kubernetes.io/instance-type, operator: In, values: "
      "[g5.xlarge]}\n  capacity: {nvidia.com/gpu: 2}\n---\n";
  const std::string pool =
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n"
      "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: "
      "default}\n      requirements:\n        - {key: node.kubernetes.io/instance-type, "
      "operator: In, values: [g5.xlarge]}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: "
      "EC2NodeClass\nmetadata: {name: default}\nspec: {role: test}\n---\n";
  test::TempDir dir("dra-overlay");
  dir.write("manifests.yaml",
            slice + overlay + pool + kTemplate + "---\n" +
                deployment("        - {name: gpu, resourceClaimTemplateName: single-gpu}\n"));
  const auto file = dir.write("scenario.yaml",
                              "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
                              "karpenter: {feature_gates: {node_overlay: true}}\n");
  const ScenarioConfig cfg =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  CHECK(has_warning(cfg, WarningCode::DraNotModelled, "a ResourceSlice is not read"));
  CHECK(has_warning(cfg, WarningCode::DraNotModelled,
                    "a NodeOverlay's capacity describes extended resources, not DRA devices"));
  CHECK(has_warning(cfg, WarningCode::DraPodsIgnored,
                    "Deployment llm's pods (and any other pods with ResourceClaims) are never "
                    "provisioned for"));
}

TEST_CASE("karpenter.ignore_dra_requests false warns and keeps upstream's default",
          "[scenario][dra]") {
  test::TempDir dir("dra-ignore");
  dir.write("manifests.yaml", kTemplate);
  const auto file = dir.write("scenario.yaml",
                              "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
                              "karpenter: {ignore_dra_requests: false}\n");
  const ScenarioConfig cfg =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  CHECK_FALSE(cfg.karpenter.ignore_dra_requests);
  CHECK(has_warning(cfg, WarningCode::DraNotModelled, "false is not modelled"));
}
