// kube-scheduler's node scores, translated from upstream's plugin tests
// (pkg/scheduler/framework/plugins/{noderesources,tainttoleration,nodeaffinity}; Kubernetes 1.33).
#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/kube/preference_scores.hpp"
#include "fleetsim/kube/resource_scores.hpp"

using namespace fleetsim;

namespace {

Resources cpu_mem(std::int64_t cpu_millis, std::int64_t memory_bytes) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_bytes;
  return r;
}

}  // namespace

// least_allocated_test.go, TestLeastAllocatedScoringStrategy (cpu and memory, weight 1 each).
TEST_CASE("LeastAllocated scores free cpu and memory as upstream's integer mean", "[kube]") {
  // "nothing scheduled, resources requested, differently sized nodes": 3000m / 5000 asked.
  CHECK(least_allocated_score(cpu_mem(3000, 5000), cpu_mem(4000, 10000)) == 37);
  CHECK(least_allocated_score(cpu_mem(3000, 5000), cpu_mem(6000, 10000)) == 50);
  // "no resources requested, pods scheduled with resources": 3000/0 twice, 3000/0 + 3000/5000.
  CHECK(least_allocated_score(cpu_mem(6000, 0), cpu_mem(10000, 20000)) == 70);
  CHECK(least_allocated_score(cpu_mem(6000, 5000), cpu_mem(10000, 20000)) == 57);
  // "resources requested, pods scheduled with resources, differently sized nodes".
  CHECK(least_allocated_score(cpu_mem(6000, 5000), cpu_mem(10000, 20000)) == 57);
  CHECK(least_allocated_score(cpu_mem(6000, 10000), cpu_mem(10000, 50000)) == 60);
  // "requested resources exceed node capacity": the cpu scores 0, memory still counts.
  CHECK(least_allocated_score(cpu_mem(6000, 0), cpu_mem(4000, 10000)) == 50);
  CHECK(least_allocated_score(cpu_mem(6000, 5000), cpu_mem(4000, 10000)) == 25);
  // "zero node resources, pods scheduled with resources".
  CHECK(least_allocated_score(cpu_mem(3000, 0), Resources{}) == 0);
}

// resource_allocation_test.go "1x requestless container": 100m and 200Mi count for scoring.
TEST_CASE("LeastAllocated counts a container without requests as 100m and 200Mi", "[kube]") {
  PodSpec requestless;
  requestless.scoring_extra = cpu_mem(kDefaultScoringCpuMillis, kDefaultScoringMemoryBytes);
  CHECK(requestless.scoring_requests().cpu_millis() == 100);
  CHECK(requestless.scoring_requests().memory_bytes() == 209715200);
  // On an empty 4000m / 8Gi node: (3900 × 100 ÷ 4000 + (8Gi − 200Mi) × 100 ÷ 8Gi) ÷ 2.
  CHECK(least_allocated_score(requestless.scoring_requests(), cpu_mem(4000, 8LL << 30)) == 97);
  CHECK(requestless.requests_nothing());
}

// balanced_allocation_test.go, TestNodeResourcesBalancedAllocation.
TEST_CASE("BalancedAllocation scores how evenly cpu and memory are requested", "[kube]") {
  // "nothing scheduled, resources requested, differently sized nodes".
  CHECK(balanced_allocation_score(cpu_mem(3000, 5000), cpu_mem(4000, 10000)) == 87);
  CHECK(balanced_allocation_score(cpu_mem(3000, 5000), cpu_mem(6000, 10000)) == 100);
  // "resources requested, pods scheduled with resources".
  CHECK(balanced_allocation_score(cpu_mem(6000, 5000), cpu_mem(10000, 20000)) == 82);
  CHECK(balanced_allocation_score(cpu_mem(6000, 10000), cpu_mem(10000, 20000)) == 95);
  // "... differently sized nodes".
  CHECK(balanced_allocation_score(cpu_mem(6000, 10000), cpu_mem(10000, 50000)) == 80);
  // "requested resources at node capacity": shares are capped at 1.
  CHECK(balanced_allocation_score(cpu_mem(6000, 0), cpu_mem(6000, 10000)) == 50);
  CHECK(balanced_allocation_score(cpu_mem(6000, 5000), cpu_mem(6000, 10000)) == 75);
  CHECK(balanced_allocation_score(cpu_mem(9000, 5000), cpu_mem(6000, 10000)) == 75);
}

namespace {

Taint prefer(std::string key, std::string value) {
  return Taint{
      .key = std::move(key), .value = std::move(value), .effect = TaintEffect::PreferNoSchedule};
}

Toleration tolerate(std::string key, std::string value, TaintEffect effect) {
  return Toleration{.key = std::move(key), .value = std::move(value), .effect = effect};
}

// The scores of several nodes, normalized as the plugin does.
std::vector<std::int64_t> normalized(std::vector<std::int64_t> raw, bool reverse) {
  default_normalize(raw, reverse);
  return raw;
}

}  // namespace

// taint_toleration_test.go, TestTaintTolerationScore.
TEST_CASE("TaintToleration scores fewer intolerable PreferNoSchedule taints higher", "[kube]") {
  PodSpec pod;
  pod.tolerations = {tolerate("foo", "bar", TaintEffect::PreferNoSchedule)};
  // "node with taints tolerated by the pod, gets a higher score than those node with
  // intolerable taints".
  const std::vector<Taint> a{prefer("foo", "bar")}, b{prefer("foo", "blah")};
  CHECK(normalized({intolerable_preferences(pod, a), intolerable_preferences(pod, b)}, true) ==
        std::vector<std::int64_t>{100, 0});
  // "the more intolerable taints a node has, the lower score it gets."
  const std::vector<Taint> none, one{prefer("cpu-type", "arm64")},
      two{prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")};
  CHECK(normalized({intolerable_preferences(pod, none), intolerable_preferences(pod, one),
                    intolerable_preferences(pod, two)},
                   true) == std::vector<std::int64_t>{100, 50, 0});
  // "only taints and tolerations that have effect PreferNoSchedule are checked by
  // taints-tolerations priority function".
  PodSpec hard;
  hard.tolerations = {tolerate("cpu-type", "arm64", TaintEffect::NoSchedule),
                      tolerate("disk-type", "ssd", TaintEffect::NoSchedule)};
  const std::vector<Taint> no_schedule{
      {.key = "cpu-type", .value = "arm64", .effect = TaintEffect::NoSchedule}};
  CHECK(normalized({intolerable_preferences(hard, none), intolerable_preferences(hard, no_schedule),
                    intolerable_preferences(hard, two)},
                   true) == std::vector<std::int64_t>{100, 100, 0});
  // No taint anywhere: every node scores 100.
  CHECK(normalized({0, 0}, true) == std::vector<std::int64_t>{100, 100});
}

// node_affinity_test.go, TestNodeAffinityPriority: "all nodes matches the preferred scheduling
// requirements of pod but with different priorities ".
TEST_CASE("NodeAffinity scores the summed weights of the preferred terms a node meets", "[kube]") {
  auto term = [](const Labels& labels) { return Requirements::from_labels(labels); };
  PodSpec pod;
  pod.preferred_node_terms = {
      {.weight = 2, .term = term({{"foo", "bar"}})},
      {.weight = 4, .term = term({{"key", "value"}})},
      {.weight = 5, .term = term({{"foo", "bar"}, {"key", "value"}, {"az", "az1"}})}};
  const Requirements node1 = term({{"foo", "bar"}});
  const Requirements node5 = term({{"foo", "bar"}, {"key", "value"}, {"az", "az1"}});
  const Requirements node2 = term({{"key", "value"}});
  CHECK(normalized({preferred_affinity_weight(pod, node1), preferred_affinity_weight(pod, node5),
                    preferred_affinity_weight(pod, node2)},
                   false) == std::vector<std::int64_t>{18, 100, 36});
  // "no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes'
  // priority is zero".
  const Requirements other = term({{"abc", "az11"}, {"def", "az22"}});
  CHECK(normalized({preferred_affinity_weight(pod, other), preferred_affinity_weight(pod, other)},
                   false) == std::vector<std::int64_t>{0, 0});
}
