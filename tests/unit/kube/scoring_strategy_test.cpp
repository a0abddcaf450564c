// NodeResourcesFit's scoring strategies as a KubeSchedulerConfiguration sets them, translated
// from upstream's tests (pkg/scheduler/framework/plugins/noderesources: most_allocated_test.go,
// requested_to_capacity_ratio_test.go, least_allocated_test.go). Upstream's "extendedRes",
// "intel.com/foo" and "intel.com/bar" are extended resources: here nvidia.com/gpu and amd.com/gpu
// stand in for them, as any extended resource is scored alike.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/kube/resource_scores.hpp"

using namespace fleetsim;

namespace {

constexpr ResourceIndex kExt = resource::kNvidiaGpu;
constexpr ResourceIndex kFoo = resource::kNvidiaGpu;
constexpr ResourceIndex kBar = resource::kAmdGpu;

Resources res(std::int64_t cpu, std::int64_t memory, std::int64_t ext = 0, std::int64_t bar = 0) {
  Resources r;
  r[resource::kCpu] = cpu;
  r[resource::kMemory] = memory;
  r[kExt] = ext;
  r[kBar] = bar;
  return r;
}

FitScoring strategy(ScoringStrategyType type, std::vector<ResourceWeight> resources = {
                                                  {resource::kCpu, 1}, {resource::kMemory, 1}}) {
  return FitScoring{.type = type, .resources = std::move(resources)};
}

// A node's score: the pod's requests added to what the node already has.
std::int64_t score(const FitScoring& s, const Resources& on_node, const Resources& pod,
                   const Resources& allocatable) {
  return fit_score(s, on_node + pod, allocatable, pod);
}

}  // namespace

// most_allocated_test.go, TestMostAllocatedScoringStrategy.
TEST_CASE("MostAllocated scores requested cpu and memory as upstream's integer mean", "[kube]") {
  const FitScoring most = strategy(ScoringStrategyType::MostAllocated);
  // "nothing scheduled, nothing requested".
  CHECK(score(most, {}, {}, res(4000, 10000)) == 0);
  // "nothing scheduled, resources requested, differently sized nodes".
  CHECK(score(most, {}, res(3000, 5000), res(4000, 10000)) == 62);
  CHECK(score(most, {}, res(3000, 5000), res(6000, 10000)) == 50);
  // "no resources requested, pods scheduled with resources".
  CHECK(score(most, res(6000, 0), {}, res(10000, 20000)) == 30);
  CHECK(score(most, res(6000, 5000), {}, res(10000, 20000)) == 42);
  // "resources requested, pods scheduled with resources".
  CHECK(score(most, res(3000, 0), res(3000, 5000), res(10000, 20000)) == 42);
  CHECK(score(most, res(3000, 5000), res(3000, 5000), res(10000, 20000)) == 55);
  // "resources requested equal node capacity".
  CHECK(score(most, {}, res(5000, 9000), res(5000, 10000)) == 95);
  CHECK(score(most, {}, res(5000, 9000), res(10000, 9000)) == 75);
  // The same, with memory weighted 2 and cpu 1.
  const FitScoring weighted =
      strategy(ScoringStrategyType::MostAllocated, {{resource::kMemory, 2}, {resource::kCpu, 1}});
  CHECK(score(weighted, {}, res(3000, 5000), res(4000, 10000)) == 58);
  CHECK(score(weighted, {}, res(3000, 5000), res(6000, 10000)) == 50);
}

// "no resources requested, pods scheduled, nonzero request for resource": three containers
// without requests count 100m / 200Mi each, and a cpu over the node's is capped at it.
TEST_CASE("MostAllocated caps requests beyond the node at its allocatable", "[kube]") {
  const FitScoring most = strategy(ScoringStrategyType::MostAllocated);
  const std::int64_t mi = 1024 * 1024;
  CHECK(fit_score(most, res(300, 600 * mi), res(250, 1000 * mi), {}) == 80);
  CHECK(fit_score(most, res(100, 200 * mi), res(250, 1000 * mi), {}) == 30);
}

// "bypass extended resource if the pod does not request", "honor extended resource if the pod
// request", "if the node doesn't have a resource".
TEST_CASE("MostAllocated scores an extended resource only when the pod asks for it", "[kube]") {
  const FitScoring three = strategy(ScoringStrategyType::MostAllocated,
                                    {{resource::kCpu, 1}, {resource::kMemory, 1}, {kExt, 1}});
  CHECK(score(three, {}, res(3000, 5000), res(6000, 10000)) == 50);
  CHECK(score(three, {}, res(3000, 5000), res(6000, 10000, 4)) == 50);
  CHECK(score(three, {}, res(3000, 5000, 2), res(6000, 10000, 4)) == 50);
  CHECK(score(three, {}, res(3000, 5000, 2), res(6000, 10000, 10)) == 40);
  const FitScoring ext_first = strategy(ScoringStrategyType::MostAllocated,
                                        {{kExt, 2}, {resource::kCpu, 1}, {resource::kMemory, 1}});
  CHECK(score(ext_first, {}, res(3000, 4000), res(6000, 10000)) == 45);
  CHECK(score(ext_first, {}, res(3000, 4000), res(6000, 10000, 4)) == 45);
}

// least_allocated_test.go, TestLeastAllocatedScoringStrategy: the cases with resource weights.
TEST_CASE("LeastAllocated weighs resources as configured", "[kube]") {
  // "nothing scheduled, resources requested with different weight on CPU and memory,
  // differently sized nodes": memory 2, cpu 1.
  const FitScoring weighted =
      strategy(ScoringStrategyType::LeastAllocated, {{resource::kMemory, 2}, {resource::kCpu, 1}});
  CHECK(score(weighted, {}, res(3000, 5000), res(4000, 10000)) == 41);
  CHECK(score(weighted, {}, res(3000, 5000), res(6000, 10000)) == 50);
  // "bypass extended resource if the pod does not request".
  const FitScoring three = strategy(ScoringStrategyType::LeastAllocated,
                                    {{resource::kCpu, 1}, {resource::kMemory, 1}, {kExt, 1}});
  CHECK(score(three, {}, res(3000, 5000), res(6000, 10000)) == 50);
  CHECK(score(three, {}, res(3000, 5000), res(6000, 10000, 4)) == 50);
  // The default strategy is LeastAllocated over cpu and memory, weight 1 each.
  CHECK(FitScoring{} == strategy(ScoringStrategyType::LeastAllocated));
}

// requested_to_capacity_ratio_test.go, TestBrokenLinearFunction.
TEST_CASE("RequestedToCapacityRatio's shape is a broken line in integers", "[kube]") {
  const std::vector<ShapePoint> a{{10, 1}, {90, 9}};
  const std::vector<std::pair<std::int64_t, std::int64_t>> at_a{
      {-10, 1}, {0, 1},  {9, 1},  {10, 1}, {15, 1},  {19, 1},
      {20, 2},  {89, 8}, {90, 9}, {99, 9}, {100, 9}, {110, 9}};
  for (auto [p, want] : at_a) CHECK(broken_linear(a, p) == want);
  const std::vector<ShapePoint> b{{0, 2}, {40, 10}, {100, 0}};
  const std::vector<std::pair<std::int64_t, std::int64_t>> at_b{
      {-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}};
  for (auto [p, want] : at_b) CHECK(broken_linear(b, p) == want);
  const std::vector<ShapePoint> flat{{0, 2}, {40, 2}, {100, 2}};
  for (std::int64_t p : {-10, 0, 20, 30, 40, 70, 100, 110}) CHECK(broken_linear(flat, p) == 2);
}

// TestRequestedToCapacityRatioScoringStrategy: shape {0: 10, 100: 0}, cpu and memory.
TEST_CASE("RequestedToCapacityRatio with a falling shape favours the least requested nodes",
          "[kube]") {
  FitScoring ratio = strategy(ScoringStrategyType::RequestedToCapacityRatio);
  ratio.shape = {{0, 10}, {100, 0}};
  // "nothing scheduled, nothing requested (default - least requested nodes have priority)".
  CHECK(score(ratio, {}, {}, res(4000, 10000)) == 100);
  // "nothing scheduled, resources requested, differently sized nodes": (25 + 50) / 2 rounds up.
  CHECK(score(ratio, {}, res(3000, 5000), res(4000, 10000)) == 38);
  CHECK(score(ratio, {}, res(3000, 5000), res(6000, 10000)) == 50);
  // "no resources requested, pods scheduled with resources".
  CHECK(score(ratio, res(3000, 5000), {}, res(4000, 10000)) == 38);
  CHECK(score(ratio, res(3000, 5000), {}, res(6000, 10000)) == 50);
}

// TestResourceBinPackingSingleExtended: shape {0: 0, 100: 1} over intel.com/foo, weight 1; node1
// has 8, node2 4.
TEST_CASE("RequestedToCapacityRatio bin-packs one extended resource", "[kube]") {
  FitScoring ratio = strategy(ScoringStrategyType::RequestedToCapacityRatio, {{kFoo, 1}});
  ratio.shape = {{0, 0}, {100, 1}};
  const Resources node1 = res(4000, 10000LL << 20, 8), node2 = res(4000, 10000LL << 20, 4);
  // "nothing scheduled, nothing requested": the pod asks for no foo, so nothing scores.
  CHECK(score(ratio, {}, {}, node1) == 0);
  CHECK(score(ratio, {}, {}, node2) == 0);
  // "resources requested, pods scheduled with less resources".
  CHECK(score(ratio, {}, res(0, 0, 2), node1) == 2);
  CHECK(score(ratio, {}, res(0, 0, 2), node2) == 5);
  // "... on node with existing pod running": node2 already runs a pod with 2.
  CHECK(score(ratio, res(0, 0, 2), res(0, 0, 2), node2) == 10);
  // "resources requested, pods scheduled with more resources".
  CHECK(score(ratio, {}, res(0, 0, 4), node1) == 5);
  CHECK(score(ratio, {}, res(0, 0, 4), node2) == 10);
}

// TestResourceBinPackingMultipleExtended: foo weight 3, bar weight 5; node1 has foo 8 and bar 4,
// node2 foo 4 and bar 8.
TEST_CASE("RequestedToCapacityRatio weighs several extended resources and rounds", "[kube]") {
  FitScoring ratio =
      strategy(ScoringStrategyType::RequestedToCapacityRatio, {{kFoo, 3}, {kBar, 5}});
  ratio.shape = {{0, 0}, {100, 1}};
  const Resources node1 = res(4000, 10000LL << 20, 8, 4), node2 = res(4000, 10000LL << 20, 4, 8);
  CHECK(score(ratio, {}, {}, node1) == 0);  // "nothing scheduled, nothing requested"
  CHECK(score(ratio, {}, {}, node2) == 0);
  // "resources requested, pods scheduled with less resources": (2×3 + 5×5) / 8 and (5×3 + 2×5) / 8.
  CHECK(score(ratio, {}, res(0, 0, 2, 2), node1) == 4);
  CHECK(score(ratio, {}, res(0, 0, 2, 2), node2) == 3);
  // "... on node with existing pod running": node2 runs foo 4 and bar 2 already.
  CHECK(score(ratio, {}, res(0, 0, 2, 2), node1) == 4);
  CHECK(score(ratio, res(0, 0, 4, 2), res(0, 0, 2, 2), node2) == 7);
  // "resources requested, pods scheduled with more resources".
  CHECK(score(ratio, {}, res(0, 0, 4, 2), node1) == 5);
  CHECK(score(ratio, {}, res(0, 0, 4, 2), node2) == 5);
}

// The GPU bin-packing the NVIDIA and cloud guides recommend: MostAllocated with nvidia.com/gpu
// weighted. A one-GPU pod scores the node whose GPUs are busier higher, and a pod that asks for
// no GPU is scored on cpu and memory alone.
TEST_CASE("MostAllocated with nvidia.com/gpu weighted prefers the node with busy GPUs", "[kube]") {
  const FitScoring gpu = strategy(ScoringStrategyType::MostAllocated,
                                  {{resource::kCpu, 1}, {resource::kMemory, 1}, {kExt, 3}});
  const Resources g5_12xlarge = res(47000, 180LL << 30, 4);
  // cpu 8000 × 100 / 47000 = 17, memory 32Gi × 100 / 180Gi = 17, gpu 3 × 100 / 4 = 75.
  CHECK(score(gpu, res(4000, 16LL << 30, 2), res(4000, 16LL << 30, 1), g5_12xlarge) ==
        (17 + 17 + 75 * 3) / 5);
  // The empty node: cpu 8, memory 8, gpu 25.
  CHECK(score(gpu, {}, res(4000, 16LL << 30, 1), g5_12xlarge) == (8 + 8 + 25 * 3) / 5);
  CHECK(score(gpu, {}, res(4000, 16LL << 30), g5_12xlarge) == (8 + 8) / 2);
}

// balanced_allocation.go with three resources: the population standard deviation.
TEST_CASE("BalancedAllocation over three resources uses their standard deviation", "[kube]") {
  const std::vector<ResourceIndex> three{resource::kCpu, resource::kMemory, kExt};
  // Shares 0.5, 0.5 and 0.25 (the pod asks for the GPU): mean 5/12, deviation √(1/72) = 0.1178.
  CHECK(balanced_allocation_score(three, res(2000, 4000, 1), res(4000, 8000, 4), res(0, 0, 1)) ==
        88);
  // A pod that asks for no GPU: the GPU is left out, cpu and memory are even.
  CHECK(balanced_allocation_score(three, res(2000, 4000), res(4000, 8000, 4), res(2000, 4000)) ==
        100);
}
