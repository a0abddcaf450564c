// The Cluster Autoscaler's expanders and their chain, translated from upstream's expander/ tests.
#include "fleetsim/provisioning/cluster_autoscaler/expander.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace fleetsim;

namespace {

Resources cpu_mem(std::int64_t cpu_millis, std::int64_t memory_bytes) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_bytes;
  return r;
}

// An option of `node_count` nodes holding `pods` pods (their indices are irrelevant here).
ScaleUpOption option(std::string name, std::int64_t node_count, std::size_t pods = 1,
                     Resources pod_requests = {}, Resources node_capacity = cpu_mem(1000, 1000)) {
  ScaleUpOption o;
  o.name = std::move(name);
  o.node_count = node_count;
  for (std::size_t i = 0; i < pods; ++i) o.pods.push_back(static_cast<std::uint32_t>(i));
  o.pod_requests = pod_requests;
  o.node_capacity = node_capacity;
  return o;
}

std::vector<std::size_t> all_of(const std::vector<ScaleUpOption>& options) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < options.size(); ++i) out.push_back(i);
  return out;
}

std::vector<std::size_t> best(Expander e, const std::vector<ScaleUpOption>& options,
                              const std::vector<ExpanderPriority>& priorities = {}) {
  return keep_best(e, options, all_of(options), priorities);
}

using Indices = std::vector<std::size_t>;

}  // namespace

// expander/waste/waste_test.go: TestLeastWaste. A pod of 500m / 1000Mi on one node; the score is
// the idle share of CPU plus that of memory: balanced (8000m / 16000Mi) 0.9375 + 0.9375 = 1.875,
// highmem (8000m / 32000Mi) 0.9375 + 0.96875 = 1.90625, lowcpu (4000m / 16000Mi) 0.875 + 0.9375
// = 1.8125.
TEST_CASE("least-waste keeps the option with the least idle CPU and memory (TestLeastWaste)",
          "[provisioning][cluster-autoscaler][expander]") {
  const std::int64_t cpu_per_pod = 500;
  const std::int64_t memory_per_pod = 1000LL * 1024 * 1024;
  const Resources pod = cpu_mem(cpu_per_pod, memory_per_pod);
  const ScaleUpOption balanced =
      option("balanced", 1, 1, pod, cpu_mem(16 * cpu_per_pod, 16 * memory_per_pod));
  const ScaleUpOption highmem =
      option("highmem", 1, 1, pod, cpu_mem(16 * cpu_per_pod, 32 * memory_per_pod));
  const ScaleUpOption lowcpu =
      option("lowcpu", 1, 1, pod, cpu_mem(8 * cpu_per_pod, 16 * memory_per_pod));

  // One node info and no pods: the lone option is returned.
  const ScaleUpOption no_pods =
      option("balanced", 1, 0, {}, cpu_mem(16 * cpu_per_pod, 16 * memory_per_pod));
  CHECK(best(Expander::LeastWaste, {no_pods}) == Indices{0});
  // One pod, one node info.
  CHECK(best(Expander::LeastWaste, {balanced}) == Indices{0});
  // 1.875 beats highmem's 1.90625.
  CHECK(best(Expander::LeastWaste, {balanced, highmem}) == Indices{0});
  CHECK(best(Expander::LeastWaste, {highmem, balanced}) == Indices{1});
  // lowcpu's 1.8125 beats both.
  CHECK(best(Expander::LeastWaste, {balanced, highmem, lowcpu}) == Indices{2});
}

// waste.go: equal scores are all kept (exact float equality); the score reads Capacity CPU and
// memory only, so idle GPUs on one template do not count against it.
TEST_CASE("least-waste keeps ties and ignores GPUs",
          "[provisioning][cluster-autoscaler][expander]") {
  const Resources pod = cpu_mem(500, 1000LL << 20);
  const Resources node = cpu_mem(8000, 16000LL << 20);
  Resources gpu_node = node;
  gpu_node[resource::kNvidiaGpu] = 8;
  // Two nodes holding two pods waste exactly what one node holding one pod does.
  const ScaleUpOption one = option("one", 1, 1, pod, node);
  const ScaleUpOption two = option("two", 2, 2, pod + pod, node);
  const ScaleUpOption gpus = option("gpus", 1, 1, pod, gpu_node);
  CHECK(best(Expander::LeastWaste, {one, two}) == Indices{0, 1});
  CHECK(best(Expander::LeastWaste, {gpus, one}) == Indices{0, 1});
  // Two nodes holding one pod waste more.
  const ScaleUpOption half = option("half", 2, 1, pod, node);
  CHECK(best(Expander::LeastWaste, {half, one}) == Indices{1});
}

// expander/mostpods/mostpods_test.go: TestMostPods.
TEST_CASE("most-pods keeps every option with the most pods (TestMostPods)",
          "[provisioning][cluster-autoscaler][expander]") {
  const ScaleUpOption eo0 = option("EO0", 1, 0);
  const ScaleUpOption eo1 = option("EO1", 1, 1);
  const ScaleUpOption eo1b = option("EO1b", 1, 1);
  CHECK(best(Expander::MostPods, {eo0}) == Indices{0});
  CHECK(best(Expander::MostPods, {eo0, eo1}) == Indices{1});
  CHECK(best(Expander::MostPods, {eo0, eo1, eo1b}) == Indices{1, 2});
}

// expander/leastnodes/leastnodes_test.go: TestLeastNodes (NodeCount per option; options of 0
// nodes are skipped).
TEST_CASE("least-nodes keeps every option with the fewest nodes, skipping 0 (TestLeastNodes)",
          "[provisioning][cluster-autoscaler][expander]") {
  auto least = [](const std::vector<std::int64_t>& counts) {
    std::vector<ScaleUpOption> options;
    for (std::size_t i = 0; i < counts.size(); ++i)
      options.push_back(option("EO" + std::to_string(i), counts[i]));
    return best(Expander::LeastNodes, options);
  };
  CHECK(least({}).empty());                                   // no options
  CHECK(least({0}).empty());                                  // no valid options
  CHECK(least({2}) == Indices{0});                            // 1 valid option
  CHECK(least({2, 1}) == Indices{1});                         // 2 valid options, not equal
  CHECK(least({6, 2, 2}) == Indices{1, 2});                   // 3 valid options, 2 equal
  CHECK(least({8, 8, 8}) == Indices{0, 1, 2});                // 3 valid options, all equal
  CHECK(least({23, 0, 5, 8, 5, 5, 22}) == Indices{2, 4, 5});  // 6 valid, 1 invalid, 3 equal
}

// keep_best works on a subset: `among` restricts the options, and the result keeps its order.
TEST_CASE("an expander filters only the options it is given",
          "[provisioning][cluster-autoscaler][expander]") {
  const std::vector<ScaleUpOption> options{option("a", 1), option("b", 3), option("c", 2),
                                           option("d", 2)};
  const Indices among{1, 2, 3};
  CHECK(keep_best(Expander::LeastNodes, options, among, {}) == Indices{2, 3});
  // random and price do not filter: everything given stays.
  CHECK(keep_best(Expander::Random, options, among, {}) == among);
  CHECK(keep_best(Expander::Price, options, among, {}) == among);
}

namespace {

// expander/priority/priority_test.go: the node groups and ConfigMaps (highest priority first).
const ScaleUpOption kT2Micro = option("my-asg.t2.micro", 1);
const ScaleUpOption kT2Large = option("my-asg.t2.large", 1);
const ScaleUpOption kT3Large = option("my-asg.t3.large", 1);
const ScaleUpOption kM44XLarge = option("my-asg.m4.4xlarge", 1);

const std::vector<ExpanderPriority> kConfig{{50, {R"(.*m4\.4xlarge.*)"}},
                                            {10, {R"(.*t2\.large.*)", R"(.*t3\.large.*)"}},
                                            {5, {R"(.*t2\.micro.*)"}}};
const std::vector<ExpanderPriority> kOneEntryConfig{{10, {R"(.*t2\.large.*)"}}};
const std::vector<ExpanderPriority> kNotMatchingConfig{{10, {R"(.*t\.large.*)"}},
                                                       {5, {R"(.*t\.micro.*)"}}};
const std::vector<ExpanderPriority> kWildcardMatchConfig{{10, {R"(.t2\.large.*)"}}, {5, {R"(.*)"}}};

}  // namespace

TEST_CASE("priority keeps the options of the highest matching priority (priority_test.go)",
          "[provisioning][cluster-autoscaler][expander]") {
  // TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfOne
  CHECK(best(Expander::Priority, {kT2Large}, kConfig) == Indices{0});
  // TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfMany: 50 beats 10.
  CHECK(best(Expander::Priority, {kT2Large, kM44XLarge}, kConfig) == Indices{1});
  // TestPriorityExpanderFiltersToHigherPriorityMatch: t2.large matches 10 and 5, t2.micro only 5.
  CHECK(best(Expander::Priority, {kT2Large, kT2Micro}, kWildcardMatchConfig) == Indices{0});
  CHECK(best(Expander::Priority, {kT2Micro, kT2Large}, kWildcardMatchConfig) == Indices{1});
  // TestPriorityExpanderCorrecltyFiltersTwoMatchingOptionsOutOfMany: both at 10, micro at 5.
  CHECK(best(Expander::Priority, {kT2Large, kT3Large, kT2Micro}, kConfig) == Indices{0, 1});
  // TestPriorityExpanderCorrecltyFallsBackToAllWhenNoMatches (as written upstream: both at 10).
  CHECK(best(Expander::Priority, {kT2Large, kT3Large}, kConfig) == Indices{0, 1});
  // TestPriorityExpanderCorrecltyHandlesConfigUpdate: unmatched groups are dropped (upstream also
  // emits a PriorityConfigMapNotMatchedGroup warning per group, not modelled)...
  CHECK(best(Expander::Priority, {kT2Large, kT3Large, kM44XLarge}, kOneEntryConfig) == Indices{0});
  // ...and after the update to the full config m4.4xlarge wins.
  CHECK(best(Expander::Priority, {kT2Large, kT3Large, kM44XLarge}, kConfig) == Indices{2});
}

TEST_CASE("priority keeps every option when nothing matches or there is no config",
          "[provisioning][cluster-autoscaler][expander]") {
  // notMatchingConfig: "t\.large" needs a single character before the dot; nothing matches.
  CHECK(best(Expander::Priority, {kT2Large, kT3Large, kT2Micro}, kNotMatchingConfig) ==
        Indices{0, 1, 2});
  // TestPriorityExpanderCorrecltySkipsBadChangeConfig: an empty configuration keeps all.
  CHECK(best(Expander::Priority, {kT2Large, kT3Large, kM44XLarge}, {}) == Indices{0, 1, 2});
}

// priority.go matches with regexp.FindStringIndex: anywhere in the group's name, unanchored;
// explicit anchors still anchor. maxPrio starts at -1, so an option matching only a priority
// below -1 is never kept (and alone it keeps nothing, so all options stay).
TEST_CASE("priority patterns match anywhere in the name, priorities below -1 never win",
          "[provisioning][cluster-autoscaler][expander]") {
  CHECK(best(Expander::Priority, {kT3Large, kT2Large}, {{10, {R"(t2\.large)"}}}) == Indices{1});
  CHECK(best(Expander::Priority, {kT3Large, kT2Large}, {{10, {"large$"}}, {5, {"^my-asg"}}}) ==
        Indices{0, 1});
  // "^t2" does not match "my-asg.t2.large": nothing matches, all stay.
  CHECK(best(Expander::Priority, {kT3Large, kT2Large}, {{10, {R"(^t2\.)"}}}) == Indices{0, 1});
  CHECK(best(Expander::Priority, {kM44XLarge, kT2Large}, {{0, {".*t2.*"}}, {-5, {".*m4.*"}}}) ==
        Indices{1});
  CHECK(best(Expander::Priority, {kM44XLarge, kT2Large}, {{-1, {".*t2.*"}}, {-5, {".*m4.*"}}}) ==
        Indices{1});
  CHECK(best(Expander::Priority, {kM44XLarge, kT2Large}, {{-5, {".*"}}}) == Indices{0, 1});
}

// expander/factory/chain_test.go: TestChainStrategy_BestOption, with fleetsim's expanders as the
// filters: each narrows the options, the chain stops as soon as one is left, and random picks
// among what remains.
TEST_CASE("the chain applies expanders in order and stops at one option (chain_test.go)",
          "[provisioning][cluster-autoscaler][expander]") {
  RngStream rng(1, "expander");
  // "filters with multiple filters": least-nodes keeps a and b, most-pods then keeps b.
  const std::vector<ScaleUpOption> three{option("a", 1, 1), option("b", 1, 2), option("c", 2, 3)};
  const std::vector<Expander> nodes_then_pods{Expander::LeastNodes, Expander::MostPods};
  CHECK(choose_option(three, nodes_then_pods, {}, rng) == std::optional<std::size_t>(1));
  // The other order: most-pods alone decides.
  const std::vector<Expander> pods_then_nodes{Expander::MostPods, Expander::LeastNodes};
  CHECK(choose_option(three, pods_then_nodes, {}, rng) == std::optional<std::size_t>(2));

  // "short circuits": least-nodes leaves a alone, so most-pods (which prefers c) never runs.
  const std::vector<ScaleUpOption> two{option("a", 1, 1), option("c", 2, 3)};
  CHECK(choose_option(two, nodes_then_pods, {}, rng) == std::optional<std::size_t>(0));
  // A single option wins at once, whatever the expanders.
  const std::vector<ScaleUpOption> one{option("c", 2, 3)};
  CHECK(choose_option(one, nodes_then_pods, {}, rng) == std::optional<std::size_t>(0));
  // priority then least-waste, as commonly configured: priority decides.
  const std::vector<Expander> prio_then_waste{Expander::Priority, Expander::LeastWaste};
  const std::vector<ScaleUpOption> groups{kT2Large, kM44XLarge, kT2Micro};
  CHECK(choose_option(groups, prio_then_waste, kConfig, rng) == std::optional<std::size_t>(1));
}

TEST_CASE("the chain ends with no choice when an expander keeps nothing",
          "[provisioning][cluster-autoscaler][expander]") {
  RngStream rng(1, "expander");
  const std::vector<ScaleUpOption> none_valid{option("a", 0), option("b", 0)};
  const std::vector<Expander> chain{Expander::LeastNodes, Expander::MostPods};
  CHECK(choose_option(none_valid, chain, {}, rng) == std::nullopt);
  CHECK(choose_option(std::vector<ScaleUpOption>{}, chain, {}, rng) == std::nullopt);
}

// The random fallback (expander/random/random.go) draws from the RngStream only among the ties
// left at the end: the same seed picks the same option; other seeds pick each of them.
TEST_CASE("the random fallback picks among ties from the RngStream, deterministically",
          "[provisioning][cluster-autoscaler][expander]") {
  // Most-pods keeps a and b (2 pods each); c (1 pod) is out.
  const std::vector<ScaleUpOption> options{option("a", 1, 2), option("b", 1, 2), option("c", 1, 1)};
  const std::vector<Expander> chain{Expander::MostPods};

  std::set<std::size_t> picked;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    RngStream rng(seed, "cluster-autoscaler");
    RngStream same(seed, "cluster-autoscaler");
    const std::optional<std::size_t> choice = choose_option(options, chain, {}, rng);
    REQUIRE(choice);
    // Exactly one draw below the number of ties, mapped onto the ties in their order.
    CHECK(*choice == Indices{0, 1}[same.below(2)]);
    CHECK(rng.next_u64() == same.next_u64());
    // The same seed gives the same choice again.
    RngStream again(seed, "cluster-autoscaler");
    CHECK(choose_option(options, chain, {}, again) == choice);
    picked.insert(*choice);
  }
  CHECK(picked == std::set<std::size_t>{0, 1});

  // Without expanders (or with random first) the pick is among all options.
  std::set<std::size_t> any;
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    RngStream rng(seed, "cluster-autoscaler");
    RngStream same(seed, "cluster-autoscaler");
    const std::optional<std::size_t> choice = choose_option(options, {}, {}, rng);
    REQUIRE(choice);
    CHECK(*choice == same.below(3));
    const std::vector<Expander> random_only{Expander::Random};
    RngStream r2(seed, "cluster-autoscaler");
    CHECK(choose_option(options, random_only, {}, r2) == choice);
    any.insert(*choice);
  }
  CHECK(any == std::set<std::size_t>{0, 1, 2});
}

TEST_CASE("a choice the expanders decide draws nothing from the RngStream",
          "[provisioning][cluster-autoscaler][expander]") {
  const std::vector<ScaleUpOption> options{option("a", 1, 1), option("b", 1, 2)};
  const std::vector<Expander> chain{Expander::MostPods};
  RngStream rng(7, "cluster-autoscaler");
  RngStream untouched(7, "cluster-autoscaler");
  CHECK(choose_option(options, chain, {}, rng) == std::optional<std::size_t>(1));
  CHECK(rng.next_u64() == untouched.next_u64());
}

TEST_CASE("expander names are upstream's flag values",
          "[provisioning][cluster-autoscaler][expander]") {
  CHECK(to_string(Expander::Random) == "random");
  CHECK(to_string(Expander::MostPods) == "most-pods");
  CHECK(to_string(Expander::LeastWaste) == "least-waste");
  CHECK(to_string(Expander::LeastNodes) == "least-nodes");
  CHECK(to_string(Expander::Price) == "price");
  CHECK(to_string(Expander::Priority) == "priority");
}
