// One consolidation pass of each method on a 2,000-node cluster with 20,000 pods (DESIGN §9;
// issue 8's target: ≤ 100 ms per pass; Karpenter allows itself 1 min and 3 min), and the pass
// with nothing to do again with the pods in 500 apps under a PodDisruptionBudget each.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <deque>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "fleetsim/disruption/multi_node_consolidation.hpp"
#include "fleetsim/disruption/single_node_consolidation.hpp"
#include "silent_bus.hpp"

namespace fleetsim {
namespace {

constexpr int kNodes = 2000;
constexpr int kPodsPerNode = 10;
constexpr int kApps = 500;  // with PDBs: 40 pods each, spread over 40 nodes

InstanceType m5(std::string_view size, int vcpu, double price) {
  InstanceType t;
  t.name = fmt::format("m5.{}", size);
  t.family = t.name.substr(0, 2);
  t.category = t.name.substr(0, 1);
  t.generation = 5;
  t.size = std::string(size);
  t.arch = std::string_view("amd64");
  t.vcpu = vcpu;
  t.memory_mib = vcpu * 4096LL;
  t.max_pods = 58;
  for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1c"})
    t.offerings.push_back(
        Offering{.zone = zone, .capacity_type = CapacityType::OnDemand, .price_per_hour = price});
  apply_aws_sizing(t);
  return t;
}

// maxUnavailable: 1 over each app's pods.
std::vector<PodDisruptionBudgetSpec> app_pdbs(int apps) {
  std::vector<PodDisruptionBudgetSpec> out;
  for (int i = 0; i < apps; ++i) {
    const std::string app = fmt::format("app-{}", i);
    out.push_back({.name = app,
                   .max_unavailable = IntOrPercent{.value = 1},
                   .selector = LabelSelector{.match_labels = {{"app", app}}}});
  }
  return out;
}

// 2,000 m5.2xlarge nodes, each with 10 Ready pods of `pod_millis` (4,000: half full; 780: full,
// with no cheaper type that fits them); with `pdbs`, pod k of a node belongs to app
// (node + 2000 k) mod 500, each app under a PDB.
struct Cluster2k {
  explicit Cluster2k(std::int64_t pod_millis, bool with_pdbs = false)
      : catalog({m5("large", 2, 0.096), m5("xlarge", 4, 0.192), m5("2xlarge", 8, 0.384)}, "bench"),
        cloud(sim, cluster, bus, catalog,
              std::vector<NodeLatency>(3, NodeLatency{seconds(0), seconds(0), seconds(0)})),
        provisioner({.sim = sim,
                     .cluster = cluster,
                     .bus = bus,
                     .cloud = cloud,
                     .nodepool_inputs = {.catalog = catalog, .node_classes = {}, .daemonsets = {}},
                     .nodepools = {pool()}}),
        pdbs(cluster, with_pdbs ? app_pdbs(kApps) : std::vector<PodDisruptionBudgetSpec>{}) {
    for (int i = 0; i < kApps; ++i) app_labels.push_back({{"app", fmt::format("app-{}", i)}});
    spec.requests[resource::kCpu] = pod_millis / kPodsPerNode;
    spec.requests[resource::kMemory] = (pod_millis / kPodsPerNode) << 20;
    spec.requests[resource::kPods] = 1;
    const WorkloadId w = cluster.add_workload({.name = "app", .kind = WorkloadKind::Deployment});
    const auto big = static_cast<std::uint32_t>(*catalog.index_of("m5.2xlarge"));
    const std::vector<InstanceTypeOption> types{
        {.type = big, .allocatable = catalog.types()[big].allocatable}};
    for (int i = 0; i < kNodes; ++i) {
      Node tpl;
      tpl.name = fmt::format("node-{}", 10000 + i);
      const NodeId id = *cloud.launch(LaunchRequest{.node = std::move(tpl), .types = types});
      sim.run_until(sim.now());
      for (int k = 0; k < kPodsPerNode; ++k) {
        uids.push_back(fmt::format("uid-{}", cluster.next_pod_id()));
        const PodId p = cluster.add_pod(
            Pod{.workload = w,
                .spec = &spec,
                .labels = pdbs.empty()
                              ? &labels
                              : &app_labels[static_cast<std::size_t>((i + kNodes * k) % kApps)],
                .namespace_name = "default",
                .uid = uids.back()});
        cluster.bind(p, id, sim.now());
        cluster.pod_ready(p, sim.now());
      }
    }
    sim.run_until(at(minutes(1)));
  }

  static NodePool pool() {
    NodePool p;
    p.name = "default";
    p.disruption.budgets = {DisruptionBudget{.percent = true, .nodes = 100}};
    return p;
  }

  Catalog catalog;
  Simulation sim{1};
  Cluster cluster;
  SilentBus bus;
  Ec2Cloud cloud;
  KarpenterProvisioner provisioner;
  PodDisruptionBudgets pdbs;
  PodSpec spec;
  Labels labels;
  std::deque<Labels> app_labels;
  std::deque<std::string> uids;
};

template <typename Method>
void run_pass(benchmark::State& state, std::int64_t pod_millis, std::size_t expect_nodes,
              bool pdbs = false) {
  Cluster2k c(pod_millis, pdbs);
  for (auto _ : state) {
    // A fresh method each pass: no consolidation state carried over.
    Method method(
        {.cluster = c.cluster, .provisioner = c.provisioner, .cloud = c.cloud, .pdbs = c.pdbs});
    BudgetTracker budgets(c.provisioner.nodepools(), c.cluster, DisruptionReason::Underutilized,
                          c.sim.now(), 0);
    DisruptionCommand command = method.compute(c.sim.now(), budgets);
    if (command.nodes.size() != expect_nodes || !command.replacements.empty())
      state.SkipWithError(("unexpected command of " + std::to_string(command.nodes.size()) +
                           (!command.replacements.empty() ? " with a replacement" : ""))
                              .c_str());
    benchmark::DoNotOptimize(command);
  }
}

// Half-full nodes: the longest prefix (100 candidates) is deleted onto the others.
void BM_MultiNodePass(benchmark::State& s) { run_pass<MultiNodeConsolidation>(s, 4000, 100); }
// Half-full nodes: the first candidate is deleted.
void BM_SingleNodePass(benchmark::State& s) { run_pass<SingleNodeConsolidation>(s, 4000, 1); }
// Full nodes: every one of the 2,000 candidates is simulated and none can go.
void BM_SingleNodePassNothingToDo(benchmark::State& s) {
  run_pass<SingleNodeConsolidation>(s, 7800, 0);
}
// The same with 500 PDBs: each candidate's pods are checked against their budgets.
void BM_SingleNodePassNothingToDoWithPdbs(benchmark::State& s) {
  run_pass<SingleNodeConsolidation>(s, 7800, 0, true);
}

BENCHMARK(BM_MultiNodePass)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SingleNodePass)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SingleNodePassNothingToDo)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SingleNodePassNothingToDoWithPdbs)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fleetsim

BENCHMARK_MAIN();
