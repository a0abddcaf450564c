// Scheduler::solve on Karpenter's scheduling benchmark shapes (DESIGN.md §8, core:
// pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go): one NodePool, 400
// instance types (type i: i+1 vCPU, 2(i+1) GiB, 10(i+1) pods, $0.1 per vCPU and per GiB), pods of
// random CPU {100m…1500m} and memory {100Mi…4Gi}. Three pod mixes: generic pods only; the
// "diverse" pods (makeDiversePods: a fifth each generic, zonal spread, hostname spread, zonal pod
// affinity, hostname pod anti-affinity); and the "preference" pods (makePreferencePods).
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
  std::deque<Labels> labels;  // shared by value: one object per distinct label set
  Labels no_labels;
};

constexpr std::int64_t kCpu[] = {100, 250, 500, 1000, 1500};
constexpr std::int64_t kMemMib[] = {100, 256, 512, 1024, 2048, 4096};
// randomLabelValue(): one of seven values.
constexpr const char* kLabelValues[] = {"a", "b", "c", "d", "e", "f", "g"};

class PodMaker {
 public:
  explicit PodMaker(PodSet& set) : set_(set) {}

  PodSpec random_requests() {
    PodSpec s;
    s.requests[resource::kCpu] = kCpu[rng_.below(5)];
    s.requests[resource::kMemory] = kMemMib[rng_.below(6)] << 20;
    s.requests[resource::kPods] = 1;
    return s;
  }
  const Labels* labels(const std::string& key, const std::string& value) {
    for (const Labels& l : set_.labels)
      if (l.size() == 1 && l.begin()->first == key && l.begin()->second == value) return &l;
    set_.labels.push_back(Labels{{key, value}});
    return &set_.labels.back();
  }
  const Labels* random_labels(const std::string& key) {
    return labels(key, kLabelValues[rng_.below(7)]);
  }
  void add(PodSpec spec, const Labels* labels) {
    const auto i = static_cast<std::int64_t>(set_.pods.size());
    set_.specs.push_back(std::move(spec));
    set_.uids.push_back("pod-" + std::to_string(i));
    set_.pods.push_back(PendingPod{.spec = &set_.specs.back(),
                                   .labels = labels,
                                   .namespace_name = "default",
                                   .created_us = i,
                                   .uid = {}});
  }
  void finish() {
    for (std::size_t i = 0; i < set_.pods.size(); ++i) set_.pods[i].uid = set_.uids[i];
  }

  // makeGenericPods
  void generic(int count) {
    for (int i = 0; i < count; ++i) {
      PodSpec s = random_requests();  // drawn before the labels, as upstream
      add(std::move(s), random_labels("my-label"));
    }
  }
  // makeTopologySpreadPods: the selector's labels are drawn apart from the pod's own.
  void spread(int count, std::string_view key) {
    for (int i = 0; i < count; ++i) {
      const Labels* own = random_labels("my-label");
      PodSpec s = random_requests();
      s.topology_spread.push_back(
          TopologySpread{.topology_key = std::string(key),
                         .max_skew = 1,
                         .selector = LabelSelector{.match_labels = *random_labels("my-label")}});
      add(std::move(s), own);
    }
  }
  // makePodAffinityPods: affinity to the pod's own labels.
  void affinity(int count, std::string_view key) {
    for (int i = 0; i < count; ++i) {
      const Labels* own = random_labels("my-affininity");
      PodSpec s = random_requests();
      s.pod_affinity.required.push_back(PodAffinityTerm{
          .topology_key = std::string(key), .selector = LabelSelector{.match_labels = *own}});
      add(std::move(s), own);
    }
  }
  // makePodAntiAffinityPods: all anti-affine to each other.
  void anti_affinity(int count, std::string_view key) {
    const Labels* nginx = labels("app", "nginx");
    for (int i = 0; i < count; ++i) {
      PodSpec s = random_requests();
      s.pod_anti_affinity.required.push_back(PodAffinityTerm{
          .topology_key = std::string(key), .selector = LabelSelector{.match_labels = *nginx}});
      add(std::move(s), nginx);
    }
  }
  // makePreferencePods: a zone preference that can be met, a zone anti-affinity preference
  // (weight 10) that cannot past the first pod, a hostname one (weight 1) that can.
  void preference(int count) {
    const Labels* nginx = labels("app", "nginx");
    for (int i = 0; i < count; ++i) {
      PodSpec s = random_requests();
      s.preferred_node_requirements = Requirements{};
      s.preferred_node_requirements->add(std::string(label::kZone),
                                         Requirement::single("test-zone-1"));
      const LabelSelector selector{.match_labels = *nginx};
      s.pod_anti_affinity.preferred = {
          PodAffinityTerm{.topology_key = std::string(label::kZone), .selector = selector},
          PodAffinityTerm{.topology_key = std::string(label::kHostname), .selector = selector}};
      s.pod_anti_affinity.preferred_weights = {10, 1};
      add(std::move(s), nginx);
    }
  }

 private:
  PodSet& set_;
  RngStream rng_{42, "bench-pods"};
};

enum class Shape { Generic, Diverse, Preference };

void make_pods(PodSet& set, int count, Shape shape) {
  PodMaker m(set);
  switch (shape) {
    case Shape::Generic:
      for (int i = 0; i < count; ++i) m.add(m.random_requests(), &set.no_labels);
      break;
    case Shape::Diverse: {  // makeDiversePods
      const int fifth = count / 5;
      m.generic(fifth);
      m.spread(fifth, label::kZone);
      m.spread(fifth, label::kHostname);
      m.affinity(fifth, label::kZone);
      m.anti_affinity(fifth, label::kHostname);
      m.generic(count - 5 * fifth);
      break;
    }
    case Shape::Preference:
      m.preference(count);
      break;
  }
  m.finish();
}

void run(benchmark::State& state, Shape shape) {
  Catalog catalog = benchmark_catalog();
  std::vector<NodePool> pools(1);
  pools[0].name = "default";
  SchedulingContext ctx(catalog, pools, {});
  Scheduler scheduler(ctx);
  PodSet set;
  make_pods(set, static_cast<int>(state.range(0)), shape);
  std::size_t claims = 0, failures = 0;
  for (auto _ : state) {
    SolveResult r = scheduler.solve(SolveInput{.pods = set.pods});
    claims = r.claims.size();
    failures = r.failures.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["nodeclaims"] = static_cast<double>(claims);
  state.counters["failures"] = static_cast<double>(failures);
  state.counters["us_per_pod"] = benchmark::Counter(
      static_cast<double>(state.iterations() * state.range(0)),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}

void BM_SchedulerSolve(benchmark::State& state) { run(state, Shape::Generic); }
void BM_SchedulerSolveDiverse(benchmark::State& state) { run(state, Shape::Diverse); }
void BM_SchedulerSolvePreference(benchmark::State& state) { run(state, Shape::Preference); }

BENCHMARK(BM_SchedulerSolve)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SchedulerSolveDiverse)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);
// Karpenter benchmarks 4,000 preference pods (BenchmarkRespectPreferences).
BENCHMARK(BM_SchedulerSolvePreference)->Arg(4000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fleetsim

BENCHMARK_MAIN();
