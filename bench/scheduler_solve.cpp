// Scheduler::solve on Karpenter's scheduling benchmark shape (DESIGN.md §8): one NodePool,
// 400 instance types (type i: i+1 vCPU, 2(i+1) GiB, 10(i+1) pods, $0.1 per vCPU and per GiB),
// pods of random CPU {100m…1500m} and memory {100Mi…4Gi}.
#include <benchmark/benchmark.h>

#include <deque>
#include <string>
#include <vector>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/scheduling/scheduler.hpp"

namespace fleetsim {
namespace {

// core:pkg/cloudprovider/fake InstanceTypes(400): no overhead, spot and on-demand in 3 zones.
Catalog benchmark_catalog() {
  std::vector<InstanceType> types;
  for (int i = 0; i < 400; ++i) {
    InstanceType t;
    t.name = "fake-it-" + std::to_string(i);
    t.vcpu = i + 1;
    t.memory_mib = 2LL * (i + 1) * 1024;
    t.arch = "amd64";
    t.capacity[resource::kCpu] = 1000LL * (i + 1);
    t.capacity[resource::kMemory] = t.memory_mib << 20;
    t.capacity[resource::kPods] = 10LL * (i + 1);
    t.allocatable = t.capacity;
    double price = 0.1 * (i + 1) + 0.1 * 2 * (i + 1);
    for (const char* zone : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
      t.offerings.push_back(
          {.zone = zone, .capacity_type = CapacityType::OnDemand, .price_per_hour = price});
      t.offerings.push_back(
          {.zone = zone, .capacity_type = CapacityType::Spot, .price_per_hour = price * 0.7});
    }
    t.requirements = Requirements::from_labels({{std::string(label::kInstanceType), t.name}});
    t.requirements.add(
        std::string(label::kZone),
        Requirement::make(Operator::In, {"test-zone-1", "test-zone-2", "test-zone-3"}));
    t.requirements.add(std::string(label::kCapacityType),
                       Requirement::make(Operator::In, {"on-demand", "spot"}));
    types.push_back(std::move(t));
  }
  std::sort(types.begin(), types.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return Catalog(std::move(types), "benchmark");
}

struct PodSet {
  std::deque<PodSpec> specs;
  std::vector<PendingPod> pods;
  std::vector<std::string> uids;
  Labels labels;
};

void make_pods(PodSet& set, int count) {
  constexpr std::int64_t kCpu[] = {100, 250, 500, 1000, 1500};
  constexpr std::int64_t kMemMib[] = {100, 256, 512, 1024, 2048, 4096};
  RngStream rng(42, "bench-pods");
  set.uids.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    PodSpec s;
    s.requests[resource::kCpu] = kCpu[rng.below(5)];
    s.requests[resource::kMemory] = kMemMib[rng.below(6)] << 20;
    s.requests[resource::kPods] = 1;
    set.specs.push_back(s);
    set.uids.push_back("pod-" + std::to_string(i));
  }
  for (int i = 0; i < count; ++i) {
    set.pods.push_back(PendingPod{.spec = &set.specs[static_cast<std::size_t>(i)],
                                  .labels = &set.labels,
                                  .namespace_name = "default",
                                  .created_us = i,
                                  .uid = set.uids[static_cast<std::size_t>(i)]});
  }
}

void BM_SchedulerSolve(benchmark::State& state) {
  Catalog catalog = benchmark_catalog();
  std::vector<NodePool> pools(1);
  pools[0].name = "default";
  SchedulingContext ctx(catalog, pools, {});
  Scheduler scheduler(ctx);
  PodSet set;
  make_pods(set, static_cast<int>(state.range(0)));
  std::size_t claims = 0;
  for (auto _ : state) {
    SolveResult r = scheduler.solve(SolveInput{.pods = set.pods});
    claims = r.claims.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["nodeclaims"] = static_cast<double>(claims);
  state.counters["us_per_pod"] = benchmark::Counter(
      static_cast<double>(state.iterations() * state.range(0)),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}

BENCHMARK(BM_SchedulerSolve)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fleetsim

BENCHMARK_MAIN();
