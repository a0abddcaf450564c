// KubeSchedulerConfiguration manifests: profiles, plugins and their args as upstream defaults
// them, and upstream's validation (apis/config/validation/validation_pluginargs_test.go) as
// located errors.
#include "fleetsim/scenario/scheduler_config_decoder.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

// Four lines; what follows starts on line 5, under the one profile.
std::string config(std::string_view profile) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles:\n  - schedulerName: default-scheduler\n" +
         std::string(profile);
}

// A pluginConfig entry for `plugin` with `args` (indented six spaces); args start on line 8.
std::string with_args(std::string_view plugin, std::string_view args) {
  return config("    pluginConfig:\n      - name: " + std::string(plugin) + "\n        args:\n" +
                std::string(args));
}

const SchedulerProfile& only_profile(const test::Decoded& d) {
  REQUIRE(d.set.scheduler_config);
  REQUIRE(d.set.scheduler_config->profiles.size() == 1);
  return d.set.scheduler_config->profiles.front();
}

}  // namespace

TEST_CASE("a KubeSchedulerConfiguration without profiles is the default profile", "[scenario]") {
  auto d = decode(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "leaderElection: {leaderElect: false}\nparallelism: 16\n");
  CHECK(only_profile(*d) == SchedulerProfile{});
  CHECK(d->warnings.warnings().empty());  // leaderElection and parallelism are inert
}

// The GPU bin-packing configuration NVIDIA's and the clouds' guides give.
TEST_CASE("NodeResourcesFit MostAllocated with nvidia.com/gpu weighted is read", "[scenario]") {
  auto d = decode(with_args("NodeResourcesFit",
                            "          scoringStrategy:\n"
                            "            type: MostAllocated\n"
                            "            resources:\n"
                            "              - {name: cpu, weight: 1}\n"
                            "              - {name: memory, weight: 1}\n"
                            "              - {name: nvidia.com/gpu, weight: 3}\n"));
  const SchedulerProfile& p = only_profile(*d);
  CHECK(p.fit.type == ScoringStrategyType::MostAllocated);
  CHECK(p.fit.resources == std::vector<ResourceWeight>{{resource::kCpu, 1},
                                                       {resource::kMemory, 1},
                                                       {resource::kNvidiaGpu, 3}});
  CHECK(p.weights == ScoreWeights{});
  CHECK(d->warnings.warnings().empty());
}

TEST_CASE("RequestedToCapacityRatio reads its shape, and weight 0 defaults to 1", "[scenario]") {
  auto d = decode(with_args("NodeResourcesFit",
                            "          scoringStrategy:\n"
                            "            type: RequestedToCapacityRatio\n"
                            "            resources: [{name: intel.com/foo, weight: 0}]\n"
                            "            requestedToCapacityRatio:\n"
                            "              shape: [{utilization: 0, score: 0}, "
                            "{utilization: 100, score: 10}]\n"));
  const SchedulerProfile& p = only_profile(*d);
  CHECK(p.fit.type == ScoringStrategyType::RequestedToCapacityRatio);
  REQUIRE(p.fit.resources.size() == 1);
  CHECK(d->resources.name(p.fit.resources[0].resource) == "intel.com/foo");
  CHECK(p.fit.resources[0].weight == 1);
  CHECK(p.fit.shape == std::vector<ShapePoint>{{0, 0}, {100, 10}});
}

TEST_CASE("score weights merge over the default plugins as upstream's do", "[scenario]") {
  auto d =
      decode(config("    plugins:\n"
                    "      score:\n"
                    "        enabled: [{name: NodeResourcesFit, weight: 10}, "
                    "{name: TaintToleration}]\n"
                    "        disabled: [{name: NodeResourcesBalancedAllocation}]\n"));
  // TaintToleration enabled without a weight scores with weight 1 (framework.go).
  CHECK(only_profile(*d).weights ==
        ScoreWeights{.taint_toleration = 1, .node_resources_fit = 10, .balanced_allocation = 0});
  auto all =
      decode(config("    plugins:\n"
                    "      score:\n"
                    "        disabled: [{name: \"*\"}]\n"
                    "        enabled: [{name: NodeResourcesFit, weight: 5}]\n"));
  CHECK(only_profile(*all).weights == ScoreWeights{.taint_toleration = 0,
                                                   .node_affinity = 0,
                                                   .node_resources_fit = 5,
                                                   .pod_topology_spread = 0,
                                                   .inter_pod_affinity = 0,
                                                   .balanced_allocation = 0,
                                                   .image_locality = 0});
  auto multi =
      decode(config("    plugins:\n"
                    "      multiPoint:\n"
                    "        enabled: [{name: PodTopologySpread, weight: 7}]\n"
                    "      score:\n"
                    "        enabled: [{name: PodTopologySpread, weight: 4}]\n"));
  CHECK(only_profile(*multi).weights.pod_topology_spread == 4);  // the score point wins
}

TEST_CASE("PodTopologySpread List defaults, hardPodAffinityWeight and percentages are read",
          "[scenario]") {
  auto d = decode(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "percentageOfNodesToScore: 30\nprofiles:\n"
      "  - pluginConfig:\n"
      "      - name: PodTopologySpread\n"
      "        args:\n"
      "          defaultingType: List\n"
      "          defaultConstraints:\n"
      "            - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
      "whenUnsatisfiable: DoNotSchedule}\n"
      "      - name: InterPodAffinity\n"
      "        args: {hardPodAffinityWeight: 0}\n"
      "  - schedulerName: all-nodes\n"
      "    percentageOfNodesToScore: 100\n");
  const auto& profiles = d->set.scheduler_config->profiles;
  REQUIRE(profiles.size() == 2);
  CHECK(profiles[0].scheduler_name == "default-scheduler");
  CHECK(profiles[0].percentage_of_nodes_to_score == 30);
  CHECK_FALSE(profiles[0].spread_defaults.system);
  REQUIRE(profiles[0].spread_defaults.list.size() == 1);
  CHECK(profiles[0].spread_defaults.list[0].when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule);
  CHECK(profiles[0].hard_pod_affinity_weight == 0);
  CHECK(profiles[1].scheduler_name == "all-nodes");
  CHECK(profiles[1].percentage_of_nodes_to_score == 100);
  CHECK(profiles[1].spread_defaults.system);
}

TEST_CASE("scheduler plugins fleetsim does not model are warned about, not refused", "[scenario]") {
  // ImageLocality is modelled (the images the kubelet pulled): its weight takes effect, unwarned.
  auto d =
      decode(config("    plugins:\n"
                    "      score:\n"
                    "        enabled: [{name: ImageLocality, weight: 5}]\n"
                    "      filter:\n"
                    "        disabled: [{name: NodePorts}]\n"
                    "      preScore:\n"
                    "        disabled: [{name: \"*\"}]\n"
                    "    pluginConfig:\n"
                    "      - name: DefaultPreemption\n"
                    "        args: {minCandidateNodesPercentage: 20}\n"
                    "      - name: NodeAffinity\n"
                    "        args:\n"
                    "          addedAffinity: {}\n"));
  CHECK(only_profile(*d).weights.image_locality == 5);
  CHECK(only_profile(*d).min_candidate_nodes_percentage == 20);  // DefaultPreemption is modelled
  std::vector<std::string> seen;
  for (const Warning& w : d->warnings.warnings())
    seen.push_back(fmt::format("{} [{}] {}", w.where.to_string(), to_string(w.code), w.message));
  CHECK(seen == std::vector<std::string>{
                    "test.yaml:9:27 [scheduler-plugin-not-modelled] fleetsim does not model the "
                    "NodePorts filter; disabling it changes nothing",
                    "test.yaml:10:7 [unmodelled-field] extension point not modelled; fleetsim "
                    "runs the default plugins there",
                    "test.yaml:17:26 [scheduler-plugin-not-modelled] NodeAffinity's "
                    "addedAffinity is not modelled: pods are placed by their own node affinity "
                    "only"});
}

// validation_pluginargs_test.go's refusals, and validation.go's.
TEST_CASE("values upstream's validation refuses fail with their location", "[scenario]") {
  auto fit = [](std::string_view strategy) {
    return decode_error(
        with_args("NodeResourcesFit", "          scoringStrategy:\n" + std::string(strategy)));
  };
  // "[ScoringStrategy] resources weight is out of range".
  CHECK(fit("            type: MostAllocated\n"
            "            resources: [{name: memory, weight: 101}]\n") ==
        "test.yaml:10:48: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: "
        "resource weight of memory not in valid range (0, 100]");
  CHECK(fit("            type: LeastAllocated\n"
            "            resources: [{name: cpu, weight: -1}]\n")
            .starts_with("test.yaml:10:45: "));
  // "[ScoringStrategy] invalid type".
  CHECK(fit("            type: Invalid\n") ==
        "test.yaml:9:19: profiles[0].pluginConfig[0].args.scoringStrategy.type: unsupported "
        "scoring strategy \"Invalid\"; expected LeastAllocated, MostAllocated or "
        "RequestedToCapacityRatio");
  // "[ScoringStrategy] RequestedToCapacityRatio without shape" and with a bad one.
  CHECK(fit("            type: RequestedToCapacityRatio\n") ==
        "test.yaml:9:13: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio:"
        " required field is missing");
  CHECK(fit("            type: RequestedToCapacityRatio\n"
            "            requestedToCapacityRatio: {shape: []}\n")
            .ends_with("shape: at least one point must be specified"));
  CHECK(fit("            type: RequestedToCapacityRatio\n"
            "            requestedToCapacityRatio:\n"
            "              shape: [{utilization: 30, score: 1}, {utilization: 20, score: 2}]\n")
            .ends_with("shape[1].utilization: utilization values must be sorted in increasing "
                       "order"));
  CHECK(fit("            type: RequestedToCapacityRatio\n"
            "            requestedToCapacityRatio:\n"
            "              shape: [{utilization: 110, score: 1}]\n")
            .ends_with("shape[0].utilization: utilization 110 is not in valid range [0, 100]"));
  CHECK(fit("            type: RequestedToCapacityRatio\n"
            "            requestedToCapacityRatio:\n"
            "              shape: [{utilization: 10, score: 11}]\n")
            .ends_with("shape[0].score: score 11 is not in valid range [0, 10]"));
  CHECK(fit("            type: MostAllocated\n"
            "            requestedToCapacityRatio: {shape: [{utilization: 1, score: 1}]}\n")
            .ends_with("requestedToCapacityRatio must be absent when type is not "
                       "RequestedToCapacityRatio"));
  // ValidateNodeResourcesBalancedAllocationArgs: "duplicated resources", "invalid weight".
  CHECK(decode_error(with_args("NodeResourcesBalancedAllocation",
                               "          resources: [{name: cpu}, {name: cpu}]\n"))
            .ends_with("resources[1]: duplicate resource cpu"));
  CHECK(decode_error(with_args("NodeResourcesBalancedAllocation",
                               "          resources: [{name: cpu, weight: 2}]\n"))
            .ends_with("weight: the weight of a BalancedAllocation resource must be 1"));
  // ValidatePodTopologySpreadArgs.
  CHECK(decode_error(with_args("PodTopologySpread",
                               "          defaultConstraints:\n"
                               "            - {maxSkew: 1, topologyKey: kubernetes.io/hostname, "
                               "whenUnsatisfiable: ScheduleAnyway}\n"))
            .ends_with("defaultingType System takes no defaultConstraints (use defaultingType: "
                       "List)"));
  auto list = [](std::string_view constraint) {
    return decode_error(with_args("PodTopologySpread",
                                  "          defaultingType: List\n"
                                  "          defaultConstraints:\n" +
                                      std::string(constraint)));
  };
  CHECK(list("            - {maxSkew: 0, topologyKey: kubernetes.io/hostname, "
             "whenUnsatisfiable: ScheduleAnyway}\n")
            .starts_with("test.yaml:10:25: profiles[0].pluginConfig[0].args.defaultConstraints[0]"
                         ".maxSkew: 0 is out of range [1, "));
  CHECK(list("            - {maxSkew: 1, topologyKey: kubernetes.io/hostname, "
             "whenUnsatisfiable: Unknown}\n")
            .ends_with("unsupported whenUnsatisfiable \"Unknown\"; expected DoNotSchedule or "
                       "ScheduleAnyway"));
  CHECK(list("            - {maxSkew: 1, topologyKey: kubernetes.io/hostname, "
             "whenUnsatisfiable: DoNotSchedule, labelSelector: {}}\n")
            .ends_with("a default constraint must not define a selector: it is the pod's "
                       "workload's"));
  CHECK(list("            - {maxSkew: 1, topologyKey: kubernetes.io/hostname, "
             "whenUnsatisfiable: DoNotSchedule}\n"
             "            - {maxSkew: 2, topologyKey: kubernetes.io/hostname, "
             "whenUnsatisfiable: DoNotSchedule}\n")
            .ends_with("duplicate default constraint {kubernetes.io/hostname, DoNotSchedule}"));
  // ValidateInterPodAffinityArgs: "invalid hardPodAffinityWeight".
  CHECK(decode_error(with_args("InterPodAffinity", "          hardPodAffinityWeight: 101\n")) ==
        "test.yaml:8:34: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: 101 is out of "
        "range [0, 100]");
  // validation.go: percentageOfNodesToScore, duplicate profiles and plugin configs, removed
  // plugins.
  CHECK(decode_error("apiVersion: kubescheduler.config.k8s.io/v1\nkind: "
                     "KubeSchedulerConfiguration\npercentageOfNodesToScore: 101\n") ==
        "test.yaml:3:27: percentageOfNodesToScore: 101 is out of range [0, 100]");
  CHECK(decode_error(config("  - schedulerName: default-scheduler\n")) ==
        "test.yaml:5:20: profiles[1].schedulerName: a second profile named \"default-scheduler\" "
        "(the first is at test.yaml:4:20)");
  CHECK(decode_error(config("    pluginConfig:\n      - name: InterPodAffinity\n"
                            "      - name: InterPodAffinity\n"))
            .ends_with("a second pluginConfig for InterPodAffinity (the first is at "
                       "test.yaml:6:15)"));
  CHECK(decode_error(config("    plugins:\n      score:\n        enabled: [{name: EBSLimits}]\n"))
            .ends_with("plugin EBSLimits was invalid in version kubescheduler.config.k8s.io/v1"));
}

TEST_CASE("unknown plugins and fields, and disabling a modelled filter, are refused",
          "[scenario]") {
  CHECK(decode_error(config("    plugins:\n      score:\n"
                            "        enabled: [{name: NodeResourceFit, weight: 2}]\n")) ==
        "test.yaml:7:26: profiles[0].plugins.score.enabled[0].name: unknown plugin "
        "\"NodeResourceFit\"; fleetsim reads kube-scheduler's in-tree plugins; did you mean "
        "\"NodeResourcesFit\"?");
  CHECK(decode_error(config("    plugins:\n      score:\n"
                            "        enabled: [{name: NodePorts}]\n"))
            .ends_with("plugin NodePorts does not extend the score extension point"));
  CHECK(decode_error(with_args("NodeResourcesFit", "          scoringStrategy: {typ: x}\n")) ==
        "test.yaml:8:28: profiles[0].pluginConfig[0].args.scoringStrategy.type: required field "
        "is missing (is \"typ\" at 8:29 a typo of it?)");
  CHECK(decode_error(with_args("NodeResourcesFit", "          scoringStrategie: {}\n"))
            .find("did you mean \"scoringStrategy\"?") != std::string::npos);
  CHECK(decode_error(config("    plugins:\n      filter:\n"
                            "        disabled: [{name: TaintToleration}]\n"))
            .starts_with("test.yaml:7:27: profiles[0].plugins.filter.disabled[0].name: "
                         "disabling the TaintToleration filter is not modelled"));
  CHECK(decode_error(config("    plugins:\n      multiPoint:\n"
                            "        disabled: [{name: NodeResourcesFit}]\n"))
            .ends_with("disabling NodeResourcesFit in multiPoint also disables its filter, "
                       "which fleetsim always applies; disable it under plugins.score instead"));
  // framework.go: a profile without a bind or queue sort plugin is refused.
  CHECK(decode_error(config("    plugins:\n      multiPoint:\n"
                            "        disabled: [{name: \"*\"}]\n"
                            "        enabled: [{name: TaintToleration}]\n")) ==
        "test.yaml:7:27: profiles[0].plugins.multiPoint.disabled[0].name: this leaves the profile "
        "without PrioritySort (queueSort plugin), which kube-scheduler refuses");
  CHECK(decode_error(config("    plugins:\n      bind:\n"
                            "        disabled: [{name: DefaultBinder}]\n"))
            .ends_with("this leaves the profile without DefaultBinder (bind plugin), which "
                       "kube-scheduler refuses"));
  // At most one configuration: kube-scheduler reads one file.
  CHECK(decode_error(config("") + "---\n" + config("")) ==
        "test.yaml:7:7: kind: a second KubeSchedulerConfiguration (the first is at "
        "test.yaml:2:7); kube-scheduler reads one configuration file");
}

// default_plugins.go registers DefaultPreemption at postFilter (through multiPoint); disabling it
// there, or every multiPoint plugin, turns preemption off. validation_pluginargs_test.go
// TestValidateDefaultPreemptionArgs: both minimums zero is refused.
TEST_CASE("DefaultPreemption can be disabled and its args are read", "[scenario]") {
  CHECK(only_profile(*decode(config(""))).preemption);
  auto off =
      decode(config("    plugins:\n      postFilter:\n        disabled: [{name: "
                    "DefaultPreemption}]\n"));
  CHECK_FALSE(only_profile(*off).preemption);
  CHECK(off->warnings.warnings().empty());
  auto args = decode(with_args("DefaultPreemption",
                               "          minCandidateNodesPercentage: 5\n"
                               "          minCandidateNodesAbsolute: 10\n"));
  CHECK(only_profile(*args).min_candidate_nodes_percentage == 5);
  CHECK(only_profile(*args).min_candidate_nodes_absolute == 10);
  CHECK(decode_error(with_args("DefaultPreemption",
                               "          minCandidateNodesPercentage: 0\n"
                               "          minCandidateNodesAbsolute: 0\n")) ==
        "test.yaml:8:11: profiles[0].pluginConfig[0].args: minCandidateNodesPercentage and "
        "minCandidateNodesAbsolute cannot both be zero");
  CHECK(decode_error(config("    plugins:\n      postFilter:\n        enabled: [{name: "
                            "NodeAffinity}]\n")) ==
        "test.yaml:7:26: profiles[0].plugins.postFilter.enabled[0].name: plugin NodeAffinity "
        "does not extend the postFilter extension point");
}
