// eksctl ClusterConfig node groups: decoding, eksctl's size defaults and the checks at load time.
#include "fleetsim/scenario/eksctl_decoder.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <tuple>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

// Four lines; the groups written after it start on line 5.
constexpr std::string_view kHead = R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
managedNodeGroups:
)";

std::string cluster(std::string_view groups) { return std::string(kHead) + std::string(groups); }

std::vector<NodeGroup> groups_of(std::string_view yaml) {
  auto d = decode(yaml);
  return d->set.node_groups;
}

// One managed group "ng" whose size fields (written from line 7 on) are `sizes`.
std::tuple<int, int, int> sizes(std::string_view sizes_yaml) {
  const auto groups =
      groups_of(cluster("  - name: ng\n    instanceType: m5.xlarge\n" + std::string(sizes_yaml)));
  REQUIRE(groups.size() == 1);
  return {groups[0].min_size, groups[0].max_size, groups[0].desired_capacity};
}

std::string size_error(std::string_view sizes_yaml) {
  return decode_error(
      cluster("  - name: ng\n    instanceType: m5.xlarge\n" + std::string(sizes_yaml)));
}

}  // namespace

TEST_CASE("managed node groups decode instanceType and instanceTypes", "[scenario][eksctl]") {
  auto d = decode(cluster(R"(  - name: gpu
    instanceType: g5.xlarge
    minSize: 0
    maxSize: 4
    desiredCapacity: 1
  - name: mixed
    instanceTypes: [g5.xlarge, g5.12xlarge]
)"));
  const auto& g = d->set.node_groups;
  REQUIRE(g.size() == 2);
  CHECK(g[0].name == "gpu");
  CHECK(g[0].managed);
  CHECK(g[0].where.to_string() == "test.yaml:5:5");
  CHECK(g[0].instance_types == std::vector<std::string>{"g5.xlarge"});
  REQUIRE(g[0].instance_type_where.size() == 1);
  CHECK(g[0].instance_type_where[0].to_string() == "test.yaml:6:19");
  CHECK(g[0].min_size == 0);
  CHECK(g[0].max_size == 4);
  CHECK(g[0].desired_capacity == 1);
  // A managed group is all on-demand unless spot: true.
  CHECK(g[0].on_demand_base == 0);
  CHECK(g[0].on_demand_percentage_above_base == 100);
  CHECK(g[0].zones.empty());  // no zones anywhere: the catalog's, when the scenario loads
  CHECK(g[0].labels.empty());
  CHECK(g[0].taints.empty());
  CHECK_FALSE(g[0].max_pods);
  // eksctl's root volume: 80 GiB gp3.
  CHECK(g[0].root_volume.size_bytes == std::int64_t{80} << 30);
  CHECK(g[0].root_volume.type == EbsVolumeType::gp3);

  CHECK(g[1].name == "mixed");
  CHECK(g[1].instance_types == std::vector<std::string>{"g5.xlarge", "g5.12xlarge"});
  REQUIRE(g[1].instance_type_where.size() == 2);
  CHECK(g[1].instance_type_where[0].to_string() == "test.yaml:11:21");
  CHECK(g[1].instance_type_where[1].to_string() == "test.yaml:11:32");
  CHECK(d->warnings.warnings().empty());
}

TEST_CASE("a group without an instance type gets eksctl's default, m5.large",
          "[scenario][eksctl]") {
  const auto g = groups_of(cluster("  - name: ng\n"));
  REQUIRE(g.size() == 1);
  CHECK(g[0].instance_types == std::vector<std::string>{"m5.large"});
}

// validation.go: ValidateManagedNodeGroup; self-managed groups as cfn/builder/nodegroup.go.
TEST_CASE("sizes are defaulted as eksctl does", "[scenario][eksctl]") {
  using S = std::tuple<int, int, int>;  // min, max, desired
  // No sizes: DefaultNodeCount 2 for all three.
  CHECK(sizes("") == S{2, 2, 2});
  // desiredCapacity only: min = max = desired.
  CHECK(sizes("    desiredCapacity: 5\n") == S{5, 5, 5});
  // minSize only: desired = min, max = min.
  CHECK(sizes("    minSize: 3\n") == S{3, 3, 3});
  // maxSize only: min and desired default to 2.
  CHECK(sizes("    maxSize: 6\n") == S{2, 6, 2});
  // desiredCapacity 0 without max: max becomes DefaultMaxSize 1.
  CHECK(sizes("    desiredCapacity: 0\n") == S{0, 1, 0});
  CHECK(sizes("    minSize: 0\n") == S{0, 1, 0});
  // A self-managed group has no DefaultMaxSize: max stays 0, and the group never grows.
  const auto self_managed = groups_of(
      "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\nnodeGroups:\n"
      "  - name: ng\n    desiredCapacity: 0\n");
  REQUIRE(self_managed.size() == 1);
  CHECK(S{self_managed[0].min_size, self_managed[0].max_size, self_managed[0].desired_capacity} ==
        S{0, 0, 0});
  // min and max: desired = min.
  CHECK(sizes("    minSize: 1\n    maxSize: 8\n") == S{1, 8, 1});
  // All three.
  CHECK(sizes("    minSize: 1\n    maxSize: 8\n    desiredCapacity: 4\n") == S{1, 8, 4});
  // min and desired: max = desired.
  CHECK(sizes("    minSize: 1\n    desiredCapacity: 4\n") == S{1, 4, 4});
}

TEST_CASE("inconsistent sizes are refused at the field", "[scenario][eksctl]") {
  CHECK(size_error("    minSize: 3\n    desiredCapacity: 2\n") ==
        "test.yaml:8:22: managedNodeGroups[0].desiredCapacity: desiredCapacity 2 is below "
        "minSize 3");
  CHECK(size_error("    maxSize: 2\n    desiredCapacity: 3\n") ==
        "test.yaml:8:22: managedNodeGroups[0].desiredCapacity: desiredCapacity 3 is above "
        "maxSize 2");
  CHECK(size_error("    minSize: 3\n    maxSize: 2\n") ==
        "test.yaml:8:14: managedNodeGroups[0].maxSize: maxSize 2 is below minSize 3");
  // maxSize 1 alone is below the default minSize 2 (eksctl: "cannot use --nodes-min=2 and
  // --nodes-max=1 at the same time").
  CHECK(size_error("    maxSize: 1\n") ==
        "test.yaml:7:14: managedNodeGroups[0].maxSize: maxSize 1 is below minSize 2");
  CHECK(size_error("    minSize: -1\n") ==
        "test.yaml:7:14: managedNodeGroups[0].minSize: -1 is out of range [0, 10000]");
}

TEST_CASE("spot: true makes a managed group all spot", "[scenario][eksctl]") {
  const auto g = groups_of(cluster(R"(  - name: spot
    instanceTypes: [g5.xlarge, g5.12xlarge]
    spot: true
  - name: on-demand
    instanceType: g5.xlarge
    spot: false
)"));
  REQUIRE(g.size() == 2);
  CHECK(g[0].on_demand_base == 0);
  CHECK(g[0].on_demand_percentage_above_base == 0);
  CHECK(g[0].on_demand_count(4) == 0);
  CHECK(g[1].on_demand_percentage_above_base == 100);
  CHECK(g[1].on_demand_count(4) == 4);
}

TEST_CASE("self-managed node groups decode their instances distribution", "[scenario][eksctl]") {
  auto d = decode(R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
nodeGroups:
  - name: workers
    instancesDistribution:
      instanceTypes: [m5.xlarge, c5.large]
      onDemandBaseCapacity: 1
      onDemandPercentageAboveBaseCapacity: 50
      spotAllocationStrategy: capacity-optimized-prioritized
      onDemandAllocationStrategy: lowest-price
  - name: cheap
    instanceType: mixed
    instancesDistribution:
      instanceTypes: [c5.large]
      spotAllocationStrategy: price-capacity-optimized
  - name: plain
    instanceType: m5.xlarge
)");
  const auto& g = d->set.node_groups;
  REQUIRE(g.size() == 3);
  CHECK_FALSE(g[0].managed);
  CHECK(g[0].instance_types == std::vector<std::string>{"m5.xlarge", "c5.large"});
  CHECK(g[0].instance_type_where.at(1).to_string() == "test.yaml:7:34");
  CHECK(g[0].on_demand_base == 1);
  CHECK(g[0].on_demand_percentage_above_base == 50);
  CHECK(g[0].spot_strategy == AllocationStrategy::Prioritized);
  CHECK(g[0].on_demand_strategy == AllocationStrategy::LowestPrice);
  // Of 4 instances: the base 1, then 50% of 3 rounded up: 1 + 2 = 3 on-demand.
  CHECK(g[0].on_demand_count(4) == 3);
  CHECK(g[0].on_demand_count(1) == 1);
  CHECK(g[0].on_demand_count(0) == 0);
  CHECK(g[0].on_demand_count(5) == 3);  // 1 + 50% of 4

  // instanceType: mixed goes with a distribution; AWS's defaults: base 0, 100% on-demand,
  // prioritized on-demand; the capacity-aware spot strategies act as lowest-price here.
  CHECK(g[1].instance_types == std::vector<std::string>{"c5.large"});
  CHECK(g[1].on_demand_base == 0);
  CHECK(g[1].on_demand_percentage_above_base == 100);
  CHECK(g[1].spot_strategy == AllocationStrategy::LowestPrice);
  CHECK(g[1].on_demand_strategy == AllocationStrategy::Prioritized);

  CHECK(g[2].instance_types == std::vector<std::string>{"m5.xlarge"});
  CHECK_FALSE(g[2].managed);
  CHECK(d->warnings.warnings().empty());
}

TEST_CASE("distribution errors name the field", "[scenario][eksctl]") {
  constexpr std::string_view kSelfHead = R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
nodeGroups:
  - name: workers
    instancesDistribution:
)";
  auto distribution = [&](std::string_view rest) {
    return decode_error(std::string(kSelfHead) + "      instanceTypes: [m5.xlarge]\n" +
                        std::string(rest));
  };
  CHECK(distribution("      spotAllocationStrategy: capacity-optimised\n") ==
        "test.yaml:8:31: nodeGroups[0].instancesDistribution.spotAllocationStrategy: unknown "
        "spotAllocationStrategy \"capacity-optimised\"; expected lowest-price, "
        "capacity-optimized, price-capacity-optimized or capacity-optimized-prioritized; did you "
        "mean \"capacity-optimized\"?");
  CHECK(distribution("      onDemandPercentageAboveBaseCapacity: 101\n") ==
        "test.yaml:8:44: nodeGroups[0].instancesDistribution.onDemandPercentageAboveBaseCapacity: "
        "101 is out of range [0, 100]");
  CHECK(decode_error(std::string(kSelfHead) + "      onDemandBaseCapacity: 1\n") ==
        "test.yaml:7:7: nodeGroups[0].instancesDistribution.instanceTypes: required field is "
        "missing");
  // A managed group has no instancesDistribution: eksctl refuses it (eksctl#1600).
  CHECK(decode_error(cluster("  - name: ng\n    instancesDistribution:\n"
                             "      instanceTypes: [m5.xlarge]\n")) ==
        "test.yaml:7:7: managedNodeGroups[0].instancesDistribution: managedNodeGroups have no "
        "instancesDistribution, and eksctl refuses it; give a managed group instanceTypes and "
        "spot: true, or make it a self-managed group under nodeGroups");
  // instanceType and instanceTypes together.
  CHECK(decode_error(cluster("  - name: ng\n    instanceType: m5.xlarge\n"
                             "    instanceTypes: [c5.large]\n")) ==
        "test.yaml:6:19: managedNodeGroups[0].instanceType: give instanceType or instanceTypes, "
        "not both");
}

TEST_CASE("labels, taints, volumes, zones and max pods", "[scenario][eksctl]") {
  auto d = decode(R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
availabilityZones: [us-east-1a, us-east-1b]
managedNodeGroups:
  - name: gpu
    instanceType: g5.xlarge
    labels: {role: gpu, team: ml}
    taints:
      - {key: nvidia.com/gpu, value: "true", effect: NoSchedule}
      - {key: spot, effect: PreferNoSchedule}
    volumeSize: 200
    volumeType: io1
    availabilityZones: [us-east-1b]
    maxPodsPerNode: 58
nodeGroups:
  - name: legacy
    instanceType: m5.xlarge
    taints:
      dedicated: "ml:NoSchedule"
      maintenance: ":NoExecute"
)");
  const auto& g = d->set.node_groups;
  REQUIRE(g.size() == 2);
  CHECK(g[0].labels == Labels{{"role", "gpu"}, {"team", "ml"}});
  CHECK(g[0].taints ==
        std::vector<Taint>{
            {.key = "nvidia.com/gpu", .value = "true", .effect = TaintEffect::NoSchedule},
            {.key = "spot", .value = "", .effect = TaintEffect::PreferNoSchedule}});
  CHECK(g[0].root_volume.size_bytes == std::int64_t{200} << 30);
  CHECK(g[0].root_volume.type == EbsVolumeType::io1);
  CHECK(g[0].zones == std::vector<std::string>{"us-east-1b"});
  CHECK(g[0].zones_where.to_string() == "test.yaml:14:24");
  CHECK(g[0].max_pods == 58);
  // The cluster's zones for a group without its own; the map form of taints, "value:Effect".
  CHECK(g[1].zones == std::vector<std::string>{"us-east-1a", "us-east-1b"});
  CHECK(g[1].taints ==
        std::vector<Taint>{{.key = "dedicated", .value = "ml", .effect = TaintEffect::NoSchedule},
                           {.key = "maintenance", .value = "", .effect = TaintEffect::NoExecute}});
  CHECK(g[1].root_volume.size_bytes == std::int64_t{80} << 30);
  CHECK(g[1].root_volume.type == EbsVolumeType::gp3);

  CHECK(decode_error(cluster("  - name: ng\n    taints: {dedicated: \"ml:NoScheduled\"}\n")) ==
        "test.yaml:6:25: managedNodeGroups[0].taints.dedicated: expected \"value:Effect\" or "
        "\"Effect\" with Effect NoSchedule, PreferNoSchedule or NoExecute, got \"ml:NoScheduled\"");
  // eksctl's parseTaint: an effect alone is a taint without a value; two colons are refused.
  auto effect_only = decode(cluster("  - name: ng\n    taints: {dedicated: NoSchedule}\n"));
  CHECK(effect_only->set.node_groups.at(0).taints ==
        std::vector<Taint>{{.key = "dedicated", .value = "", .effect = TaintEffect::NoSchedule}});
  CHECK(decode_error(cluster("  - name: ng\n    taints: {dedicated: \"a:b:NoSchedule\"}\n"))
            .starts_with("test.yaml:6:25: managedNodeGroups[0].taints.dedicated: expected"));
  // A group without zones of its own reports errors about them at the cluster's.
  CHECK(g[1].zones_where.to_string() == "test.yaml:4:20");
}

TEST_CASE("a group needs a name", "[scenario][eksctl]") {
  CHECK(decode_error(cluster("  - instanceType: m5.xlarge\n")) ==
        "test.yaml:5:5: managedNodeGroups[0].name: required field is missing");
  CHECK(decode_error(cluster("  - name: Bad_Name\n")) ==
        "test.yaml:5:11: managedNodeGroups[0].name: invalid name \"Bad_Name\": use at most 253 "
        "lowercase letters, digits, '-' or '.', starting and ending with a letter or digit");
}

// Access, AMI and network settings change how a node boots, not what it costs or holds: they are
// accepted silently (src/scenario/inert_fields.cpp); other unmodelled fields warn once each.
TEST_CASE("unmodelled fields are ignored without an error", "[scenario][eksctl]") {
  auto d = decode(cluster(R"(  - name: ng
    instanceType: m5.xlarge
    iam:
      withAddonPolicies: {autoScaler: true}
    ssh: {allow: true, publicKeyName: my-key}
    amiFamily: AmazonLinux2023
    preBootstrapCommands: ["echo hi"]
)"));
  REQUIRE(d->set.node_groups.size() == 1);
  CHECK(d->set.node_groups[0].instance_types == std::vector<std::string>{"m5.xlarge"});
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 1);
  CHECK(w[0].field == "ClusterConfig.managedNodeGroups[].preBootstrapCommands");
  CHECK(w[0].where.to_string() == "test.yaml:11:5");
  CHECK(w[0].unmodelled());
}

TEST_CASE("node-template tags give the Cluster Autoscaler's scale-from-zero template",
          "[scenario][eksctl]") {
  // aws_manager.go buildNodeFromTemplate reads resources/, label/ and taint/ tags (its tests
  // TestExtractAllocatableResourcesFromAsg, TestExtractLabelsFromAsg, TestExtractTaintsFromAsg):
  // a resource amount that is no quantity, or a taint without an effect, is skipped there.
  auto d = decode(cluster(R"(  - name: mig
    instanceType: p4de.24xlarge
    labels: {team: ml}
    tags:
      k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/mig-3g.40gb: "16"
      k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage: 100Gi
      k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu: lots
      k8s.io/cluster-autoscaler/node-template/label/nvidia.com/mig.config: all-3g.40gb
      k8s.io/cluster-autoscaler/node-template/taint/dedicated: "ml:NoSchedule"
      k8s.io/cluster-autoscaler/node-template/taint/bad: "ml"
      team: platform
nodeGroups:
  - name: self
    instanceType: m5.large
    labels: {team: web}
  - name: propagated
    instanceType: m5.large
    labels: {team: web}
    propagateASGTags: true
)"));
  const auto& g = d->set.node_groups;
  REQUIRE(g.size() == 3);
  CHECK(g[0].template_resources ==
        std::vector<std::pair<std::string, std::int64_t>>{{"nvidia.com/mig-3g.40gb", 16},
                                                          {"ephemeral-storage", 100LL << 30}});
  CHECK(g[0].template_labels == Labels{{"nvidia.com/mig.config", "all-3g.40gb"}});
  REQUIRE(g[0].template_taints.size() == 1);
  CHECK(g[0].template_taints[0].key == "dedicated");
  CHECK(g[0].template_taints[0].value == "ml");
  CHECK(g[0].template_taints[0].effect == TaintEffect::NoSchedule);
  // A managed group's own labels reach the autoscaler through DescribeNodegroup; a self-managed
  // group's only as tags, which propagateASGTags writes.
  CHECK(g[0].template_has_group_labels);
  CHECK_FALSE(g[1].template_has_group_labels);
  CHECK(g[2].template_has_group_labels);
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 2);
  CHECK(w[0].code == WarningCode::AsgTagIgnored);
  CHECK(w[0].where.to_string() == "test.yaml:11:73");
  CHECK(w[0].message == "the Cluster Autoscaler skips this tag: \"lots\" is not a quantity");
  CHECK(w[1].where.to_string() == "test.yaml:14:58");
}

namespace {

// A scenario in a scratch directory over the fixture catalog (zones us-east-1a to 1c; g5.xlarge
// has spot only in 1a and 1b), with provisioner: cluster-autoscaler and the ClusterConfig whose
// groups are `groups` in cluster.yaml.
struct CaScenario {
  test::TempDir dir;
  std::filesystem::path file;
  std::filesystem::path manifest;
  CaScenario(std::string_view name, std::string_view groups) : dir(name) {
    manifest = dir.write("cluster.yaml", cluster(groups));
    file = dir.write("scenario.yaml", "name: scratch\nduration: 6h\ncatalog: " +
                                          (test::fixtures() / "catalog/aws/us-east-1").string() +
                                          "\nprovisioner: cluster-autoscaler\nmanifests:\n"
                                          "  - cluster.yaml\n");
  }
  std::string error() const {
    return test::config_error([&] { load_scenario(file); });
  }
  // A location in cluster.yaml.
  std::string at(int line, int col) const {
    return manifest.string() + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

}  // namespace

// A node group's nodes carry eksctl's and EKS's labels, so pods pinned by them are hosted
// (issue 25, item 3: validate warned that no node group could host them).
TEST_CASE("pods pinned to a node group by eksctl's or EKS's labels are hosted",
          "[scenario][eksctl]") {
  const std::string gpu = "  - name: gpu\n    instanceType: g5.xlarge\n    maxSize: 2\n";
  auto pinned = [&](const std::string& selector) {
    return gpu +
           "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
           "  selector: {matchLabels: {app: web}}\n  template:\n"
           "    metadata: {labels: {app: web}}\n    spec:\n      nodeSelector: {" +
           selector + "}\n      containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]\n";
  };
  for (const std::string selector :
       {"eks.amazonaws.com/nodegroup: gpu", "alpha.eksctl.io/nodegroup-name: gpu",
        "eks.amazonaws.com/capacityType: ON_DEMAND"}) {
    INFO(selector);
    CHECK(load_scenario(CaScenario("ca-pinned", pinned(selector)).file).warnings.empty());
  }
  const ScenarioConfig wrong = load_scenario(
      CaScenario("ca-pinned-wrong", pinned("eks.amazonaws.com/nodegroup: gpux")).file);
  REQUIRE(wrong.warnings.size() == 1);
  CHECK(wrong.warnings[0].field == "Deployment default/web");
  // The reason calls the group a node group and names the selector and the group's value.
  CHECK(wrong.warnings[0].message ==
        "no node group can host its pods, so they stay Pending: node group gpu: nodeSelector "
        "eks.amazonaws.com/nodegroup=gpux is outside the node group's "
        "eks.amazonaws.com/nodegroup In [gpu]");
}

TEST_CASE("a cluster-autoscaler scenario loads its node groups against the catalog",
          "[scenario][eksctl]") {
  CaScenario s("ca-ok", R"(  - name: gpu
    instanceType: g5.xlarge
    spot: true
    minSize: 0
    maxSize: 4
  - name: cpu
    instanceTypes: [m5.xlarge, c5.large]
    availabilityZones: [us-east-1c]
)");
  const ScenarioConfig cfg = load_scenario(s.file);
  CHECK(cfg.provisioner == ProvisionerKind::ClusterAutoscaler);
  REQUIRE(cfg.node_groups.size() == 2);
  // Without zones a group gets every zone its types are sold in, sorted.
  CHECK(cfg.node_groups[0].zones ==
        std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"});
  CHECK(cfg.node_groups[1].zones == std::vector<std::string>{"us-east-1c"});
}

TEST_CASE("node groups are checked against the catalog at file:line:col", "[scenario][eksctl]") {
  {
    CaScenario s("ca-type", "  - name: gpu\n    instanceType: g5.xlarg\n");
    CHECK(s.error() == s.at(6, 19) +
                           ": instanceType: instance type \"g5.xlarg\" is not in the catalog; did "
                           "you mean \"g5.xlarge\"?");
  }
  {
    CaScenario s("ca-type2", "  - name: gpu\n    instanceTypes: [g5.xlarge, p5.48xlarg]\n");
    CHECK(s.error() == s.at(6, 32) +
                           ": instanceType: instance type \"p5.48xlarg\" is not in the catalog; "
                           "did you mean \"p5.48xlarge\"?");
  }
  {
    CaScenario s("ca-zone",
                 "  - name: gpu\n    instanceType: g5.xlarge\n"
                 "    availabilityZones: [us-east-1a, us-east-1d]\n");
    CHECK(s.error() == s.at(7, 24) +
                           ": availabilityZones: zone \"us-east-1d\" is not in the catalog (zones: "
                           "us-east-1a, us-east-1b, us-east-1c)");
  }
  {
    // g5.xlarge has no spot offering in us-east-1c.
    CaScenario s("ca-spot",
                 "  - name: gpu\n    instanceType: g5.xlarge\n    spot: true\n"
                 "    availabilityZones: [us-east-1c]\n");
    CHECK(s.error() == s.at(6, 19) +
                           ": instanceType: g5.xlarge has no spot offering in node group gpu's "
                           "zones");
  }
  {
    // On-demand it is sold there.
    CaScenario s("ca-od",
                 "  - name: gpu\n    instanceType: g5.xlarge\n"
                 "    availabilityZones: [us-east-1c]\n");
    CHECK(s.error() == "no error");
  }
  {
    CaScenario s("ca-dup",
                 "  - name: gpu\n    instanceType: g5.xlarge\n"
                 "  - name: gpu\n    instanceType: g5.12xlarge\n");
    CHECK(s.error() == s.at(7, 5) + ": name: a second node group named \"gpu\" (the first is at " +
                           s.at(5, 5) + ")");
  }
}

TEST_CASE("provisioner: cluster-autoscaler needs node groups", "[scenario][eksctl]") {
  test::TempDir dir("ca-none");
  const auto file = dir.write(
      "scenario.yaml",
      "name: x\nduration: 1h\ncatalog: " + (test::fixtures() / "catalog/aws/us-east-1").string() +
          "\nprovisioner: cluster-autoscaler\n");
  CHECK(test::config_error([&] { load_scenario(file); }) ==
        file.string() +
            ":4:14: provisioner: cluster-autoscaler resizes node groups: give an eksctl "
            "ClusterConfig with managedNodeGroups or nodeGroups in manifests");
}
