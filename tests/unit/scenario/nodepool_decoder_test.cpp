#include "fleetsim/scenario/nodepool_decoder.hpp"

#include <catch2/catch.hpp>

#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

// Seven lines; requirements written after it start on line 8.
constexpr std::string_view kPoolHead = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)";

std::string pool(std::string_view rest) { return std::string(kPoolHead) + std::string(rest); }

}  // namespace

TEST_CASE("the Karpenter docs' GPU NodePool decodes field by field", "[scenario]") {
  ResourceRegistry resources;
  WarningLog warnings;
  ManifestLoader loader(resources, warnings);
  ManifestSet set;
  auto file = test::fixtures() / "manifests/gpu-nodepool.yaml";
  loader.load_file(file, {}, {}, set);

  REQUIRE(set.nodepools.size() == 1);
  const NodePool& p = set.nodepools[0];
  CHECK(p.name == "gpu");
  CHECK(p.where.to_string() == file.string() + ":5:9");
  CHECK(p.weight == 50);
  CHECK(p.labels == Labels{{"workload-type", "gpu"}});
  CHECK(p.node_class == "default");
  CHECK(p.expire_after == hours(720));
  CHECK_FALSE(p.termination_grace_period);

  const Requirements& r = p.requirements;
  CHECK(r.entries().size() == 4);
  CHECK(r.get(label::kInstanceFamily)->values() == std::vector<std::string>{"g5", "p4d", "p5"});
  CHECK(r.get(label::kGpuCount)->allows("1"));
  CHECK_FALSE(r.get(label::kGpuCount)->allows("0"));
  CHECK(r.get(label::kCapacityType)->values() == std::vector<std::string>{"on-demand", "spot"});
  CHECK(r.get(label::kArch)->values() == std::vector<std::string>{"amd64"});
  CHECK(r.get(label::kArch)->min_values() == 1);
  CHECK_FALSE(r.get(label::kInstanceFamily)->min_values());

  REQUIRE(p.taints.size() == 1);
  CHECK(p.taints[0] ==
        Taint{.key = "nvidia.com/gpu", .value = "true", .effect = TaintEffect::NoSchedule});
  CHECK(p.startup_taints.empty());

  REQUIRE(p.limits.resources);
  CHECK((*p.limits.resources)[resource::kCpu] == 1'000'000);
  CHECK((*p.limits.resources)[resource::kMemory] == 1000LL * 1024 * 1024 * 1024);
  CHECK((*p.limits.resources)[resource::kNvidiaGpu] == 64);
  Resources mask;
  mask[resource::kCpu] = mask[resource::kMemory] = mask[resource::kNvidiaGpu] = 1;
  CHECK(p.limits.set_mask == mask);
  CHECK_FALSE(p.limits.nodes);

  CHECK(p.disruption.policy == ConsolidationPolicy::WhenEmptyOrUnderutilized);
  CHECK(p.disruption.consolidate_after == minutes(1));
  REQUIRE(p.disruption.budgets.size() == 2);
  CHECK(p.disruption.budgets[0] ==
        DisruptionBudget{
            .percent = true, .nodes = 10, .reasons = {}, .schedule = {}, .duration = {}});
  CHECK(p.disruption.budgets[1] == DisruptionBudget{.percent = false,
                                                    .nodes = 0,
                                                    .reasons = {DisruptionReason::Drifted},
                                                    .schedule = "0 9 * * mon-fri",
                                                    .duration = hours(8)});
}

TEST_CASE("NodePool defaults follow Karpenter v1", "[scenario]") {
  auto d = decode(pool("      requirements: []\n"));
  const NodePool& p = d->set.nodepools.at(0);
  CHECK(p.weight == 0);
  CHECK(p.expire_after == hours(720));
  CHECK(p.disruption.policy == ConsolidationPolicy::WhenEmptyOrUnderutilized);
  CHECK(p.disruption.consolidate_after == SimDuration{0});
  REQUIRE(p.disruption.budgets.size() == 1);
  CHECK(p.disruption.budgets[0].percent);
  CHECK(p.disruption.budgets[0].nodes == 10);
  CHECK_FALSE(p.limits.any());
  CHECK(d->warnings.warnings().empty());
}

TEST_CASE("Never, node-count limits and custom resources in NodePools", "[scenario]") {
  auto d = decode(pool(R"(      expireAfter: Never
  limits:
    nodes: 10
    aws.amazon.com/neuron: 16
    example.com/widget: 3
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
    budgets: [{nodes: "5"}]
)"));
  const NodePool& p = d->set.nodepools.at(0);
  CHECK_FALSE(p.expire_after);
  CHECK(p.limits.nodes == 10);
  REQUIRE(p.limits.resources);
  CHECK((*p.limits.resources)[resource::kNeuron] == 16);
  auto widget = d->resources.find("example.com/widget");
  REQUIRE(widget);
  CHECK(*widget == resource::kWellKnownCount);
  CHECK((*p.limits.resources)[*widget] == 3);
  CHECK(p.limits.set_mask[resource::kCpu] == 0);
  CHECK(p.disruption.policy == ConsolidationPolicy::WhenEmpty);
  CHECK_FALSE(p.disruption.consolidate_after);
  CHECK(p.disruption.budgets ==
        std::vector<DisruptionBudget>{
            {.percent = false, .nodes = 5, .reasons = {}, .schedule = {}, .duration = {}}});
}

TEST_CASE("all eight operators decode with their set semantics", "[scenario]") {
  auto d = decode(pool(R"(      requirements:
        - {key: example.com/a, operator: In, values: [x, y]}
        - {key: example.com/b, operator: NotIn, values: [x]}
        - {key: example.com/c, operator: Exists}
        - {key: example.com/d, operator: DoesNotExist}
        - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["4"]}
        - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["64"]}
        - {key: karpenter.k8s.aws/instance-memory, operator: Gte, values: ["16384"]}
        - {key: karpenter.k8s.aws/instance-memory, operator: Lte, values: ["65536"]}
        - {key: beta.kubernetes.io/arch, operator: In, values: [arm64]}
)"));
  const Requirements& r = d->set.nodepools.at(0).requirements;
  CHECK(r.get("example.com/a")->effective_operator() == Operator::In);
  CHECK(r.get("example.com/b")->effective_operator() == Operator::NotIn);
  CHECK(r.get("example.com/c")->effective_operator() == Operator::Exists);
  CHECK(r.get("example.com/d")->effective_operator() == Operator::DoesNotExist);
  const Requirement* cpu = r.get(label::kInstanceCpu);
  CHECK_FALSE(cpu->allows("4"));
  CHECK(cpu->allows("5"));
  CHECK(cpu->allows("63"));
  CHECK_FALSE(cpu->allows("64"));
  const Requirement* mem = r.get(label::kInstanceMemory);
  CHECK(mem->allows("16384"));
  CHECK(mem->allows("65536"));
  CHECK_FALSE(mem->allows("65537"));
  // Karpenter normalizes deprecated label keys.
  CHECK(r.get(label::kArch)->values() == std::vector<std::string>{"arm64"});
  CHECK_FALSE(r.has("beta.kubernetes.io/arch"));
}

TEST_CASE("NodePool requirement errors name the field and position", "[scenario]") {
  CHECK(decode_error(pool(R"(      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: []
)")) == "test.yaml:11:19: spec.template.spec.requirements[0].values: operator In needs at least "
        "one value");

  CHECK(decode_error(pool(R"(      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}
        - key: karpenter.k8s.aws/instance-gpu-count
          operator: Gtt
          values: ["0"]
)")) == "test.yaml:12:21: spec.template.spec.requirements[2].operator: unknown operator \"Gtt\"; "
        "did you "
        "mean \"Gt\"?");

  CHECK(decode_error(pool(R"(      requirements:
        - key: karpenter.k8s.aws/instance-gpu-count
          operator: Gt
          values: ["-1"]
)")) == "test.yaml:11:19: spec.template.spec.requirements[0].values: operator Gt needs exactly one "
        "non-negative integer value");

  CHECK(
      decode_error(pool(R"(      requirements:
        - key: karpenter.k8s.aws/instance-gpu-count
          operator: Lte
          values: ["1", "2"]
)")) ==
      "test.yaml:11:19: spec.template.spec.requirements[0].values: operator Lte needs exactly one "
      "non-negative integer value");

  CHECK(decode_error(pool(R"(      requirements:
        - key: example.com/team
          operator: Exists
          values: [a]
)")) == "test.yaml:11:19: spec.template.spec.requirements[0].values: operator Exists takes no "
        "values");

  CHECK(
      decode_error(pool(R"(      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [g5, p4d]
          minValues: 3
)")) ==
      "test.yaml:12:22: spec.template.spec.requirements[0].minValues: minValues 3 needs at least 3 "
      "values, found 2");

  CHECK(
      decode_error(pool(R"(      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: Exists
          minValues: 51
)")) ==
      "test.yaml:11:22: spec.template.spec.requirements[0].minValues: 51 is out of range [1, 50]");

  CHECK(decode_error(pool(R"(      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: [spot, ondemand]
)")) == "test.yaml:11:26: spec.template.spec.requirements[0].values[1]: unknown capacity type "
        "\"ondemand\"; expected on-demand, spot or reserved; did you mean \"on-demand\"?");
}

TEST_CASE("NodePools may not require restricted labels", "[scenario]") {
  auto key_error = [](std::string_view key) {
    return decode_error(pool("      requirements:\n        - key: " + std::string(key) +
                             "\n          operator: Exists\n"));
  };
  CHECK(key_error("kubernetes.io/hostname") ==
        "test.yaml:9:16: spec.template.spec.requirements[0].key: label \"kubernetes.io/hostname\" "
        "is restricted");
  CHECK(key_error("karpenter.sh/nodepool") ==
        "test.yaml:9:16: spec.template.spec.requirements[0].key: label \"karpenter.sh/nodepool\" "
        "is restricted");
  CHECK(key_error("karpenter.sh/team") ==
        "test.yaml:9:16: spec.template.spec.requirements[0].key: label domain \"karpenter.sh\" is "
        "restricted");
  CHECK(key_error("example.kubernetes.io/team") ==
        "test.yaml:9:16: spec.template.spec.requirements[0].key: label domain \"kubernetes.io\" is "
        "restricted");
  CHECK(key_error("karpenter.k8s.aws/team") ==
        "test.yaml:9:16: spec.template.spec.requirements[0].key: label domain "
        "\"karpenter.k8s.aws\" is "
        "restricted");
  for (std::string_view ok : {"karpenter.sh/capacity-type", "node.kubernetes.io/instance-type",
                              "topology.kubernetes.io/zone", "karpenter.k8s.aws/instance-gpu-name",
                              "node-role.kubernetes.io/gpu", "example.com/team", "team"}) {
    CAPTURE(ok);
    CHECK(key_error(ok) == "no error");
  }
  CHECK(decode_error(pool(
            "      requirements: []\n    metadata:\n      labels: {karpenter.sh/nodepool: x}\n")) ==
        "test.yaml:10:16: spec.template.metadata.labels.karpenter.sh/nodepool: label "
        "\"karpenter.sh/nodepool\" is restricted");
}

TEST_CASE("NodePool limits on requirements count and other field errors", "[scenario]") {
  std::string many = "      requirements:\n";
  for (int i = 0; i < 101; ++i)
    many += "        - {key: example.com/k" + std::to_string(i) + ", operator: Exists}\n";
  CHECK(decode_error(pool(many)) ==
        "test.yaml:9:9: spec.template.spec.requirements: at most 100 requirements are allowed, "
        "found 101");

  CHECK(decode_error(pool("  weight: 0\n")) ==
        "test.yaml:8:11: spec.weight: 0 is out of range [1, 100]");
  CHECK(decode_error(pool("  weight: \"50\"\n")) ==
        "test.yaml:8:11: spec.weight: expected an integer, got a scalar (\"50\")");
  CHECK(decode_error(pool("      taints:\n        - {key: nvidia.com/gpu, effect: NoSchedul}\n")) ==
        "test.yaml:9:41: spec.template.spec.taints[0].effect: unknown taint effect \"NoSchedul\"; "
        "expected "
        "NoSchedule, PreferNoSchedule or NoExecute; did you mean \"NoSchedule\"?");
  CHECK(decode_error(pool("  disruption:\n    budgets: [{nodes: \"110%\"}]\n")) ==
        "test.yaml:9:23: spec.disruption.budgets[0].nodes: invalid budget \"110%\"; expected a "
        "node count "
        "such as \"5\" or a percentage from \"0%\" to \"100%\"");
  CHECK(decode_error(pool("  disruption:\n    budgets:\n      - {nodes: \"0\", schedule: \"0 9 * "
                          "*\", duration: 8h}\n")) ==
        "test.yaml:10:32: spec.disruption.budgets[0].schedule: invalid schedule \"0 9 * *\": a "
        "cron schedule has five fields: minute hour day-of-month month day-of-week");
  // Issue 13, class 1: what the run's parser refuses fails at load, not silently at run time.
  for (const auto& [cron, why] : std::vector<std::pair<std::string, std::string>>{
           {"*/0 * * * *", "bad minute field"},
           {"61 * * * *", "bad minute field"},
           {"5-1 * * * *", "bad minute field"},
           {"0 0 * * 7", "bad day-of-week field (0-6 or sun-sat)"}}) {
    CHECK(decode_error(pool("  disruption:\n    budgets:\n      - {nodes: \"0\", schedule: \"" +
                            cron + "\", duration: 8h}\n")) ==
          "test.yaml:10:32: spec.disruption.budgets[0].schedule: invalid schedule \"" + cron +
              "\": " + why);
  }
  // A huge step is valid (minute 1 only, as robfig/cron reads it) and must not overflow.
  CHECK(decode_error(pool("  disruption:\n    budgets:\n      - {nodes: \"0\", schedule: "
                          "\"1/2147483647 * * * *\", duration: 8h}\n")) == "no error");
  CHECK(decode_error(
            pool("  disruption:\n    budgets:\n      - {nodes: \"0\", schedule: \"@daily\"}\n")) ==
        "test.yaml:10:9: spec.disruption.budgets[0]: a budget with a schedule needs a duration");
  CHECK(decode_error(pool("  disruption:\n    consolidationPolicy: WhenUnderutilized\n")) ==
        "test.yaml:9:26: spec.disruption.consolidationPolicy: unknown consolidationPolicy "
        "\"WhenUnderutilized\"; expected WhenEmpty, WhenEmptyOrUnderutilized, Balanced "
        "(karpenter.sh/v1 renamed v1beta1's WhenUnderutilized WhenEmptyOrUnderutilized)");
  CHECK(decode_error(pool("  limits: {cpu: -4}\n")) ==
        "test.yaml:8:17: spec.limits.cpu: quantity \"-4\" must not be negative");
}

TEST_CASE("a NodePool without a nodeClassRef is refused", "[scenario]") {
  CHECK(decode_error(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      requirements: []
)") == "test.yaml:8:7: spec.template.spec.nodeClassRef: required field is missing");
}

TEST_CASE("a NodePool's template annotations are read: its nodes carry them", "[scenario]") {
  auto d = test::decode(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata:
      annotations: {karpenter.sh/do-not-disrupt: "true"}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
)");
  const NodePool& pool = d->set.nodepools.at(0);
  CHECK(pool.annotations == Labels{{"karpenter.sh/do-not-disrupt", "true"}});
  CHECK(d->warnings.warnings().empty());
}

// Karpenter's CRD (core:pkg/apis/v1/nodepool.go kubebuilder patterns) refuses durations that
// Go's parser reads: fleetsim refuses them too, so a NodePool that loads here applies there.
TEST_CASE("NodePool durations follow the CRD's patterns, not Go's parser (issue 25, item 8)",
          "[scenario]") {
  auto expire = [](std::string_view v) {
    return decode_error(pool("      expireAfter: " + std::string(v) + "\n"));
  };
  CHECK(expire("500ms") ==
        "test.yaml:8:20: spec.template.spec.expireAfter: \"500ms\" is not a duration Karpenter "
        "accepts: whole hours, minutes and seconds (90s, 5m, 1h30m) or Never (its CRD's "
        "pattern ^(([0-9]+(s|m|h))+|Never)$)");
  CHECK(
      expire("1.5h").starts_with("test.yaml:8:20: spec.template.spec.expireAfter: \"1.5h\" is "
                                 "not a duration Karpenter accepts"));
  CHECK(expire("720h") == "no error");
  CHECK(expire("1h30m15s") == "no error");
  CHECK(expire("Never") == "no error");
  CHECK(decode_error(pool("      terminationGracePeriod: Never\n"))
            .ends_with("(its CRD's pattern ^([0-9]+(s|m|h))+$)"));
  CHECK(decode_error(pool("  disruption: {consolidateAfter: 30sec}\n"))
            .starts_with("test.yaml:8:34: spec.disruption.consolidateAfter: \"30sec\" is not"));

  auto budget = [](std::string_view duration) {
    return decode_error(
        pool("  disruption:\n    budgets:\n      - {nodes: \"0\", schedule: \"@daily\", "
             "duration: " +
             std::string(duration) + "}\n"));
  };
  CHECK(budget("90s") ==
        "test.yaml:10:52: spec.disruption.budgets[0].duration: \"90s\" is not a budget duration "
        "Karpenter accepts: hours and minutes (30m, 2h, 1h30m), as its CRD's pattern "
        "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$ has it");
  for (std::string_view bad : {"1h30s", "0s", "5m30m", "1h2h", "1.5h"})
    CHECK(budget(bad).find("is not a budget duration") != std::string::npos);
  for (std::string_view good : {"30m", "2h", "1h30m", "1h30m0s", "10m0s"})
    CHECK(budget(good) == "no error");
}
