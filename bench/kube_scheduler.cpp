// kube-scheduler's binding step at 2,000 one-GPU pods and nodes (issue 23, item 1): one pass that
// binds them all, and a scale-out in which the nodes come up one a second, as Karpenter's
// launches do, the pods that fail backing off between (each node that comes up sends every
// waiting pod back to the queue, as upstream's events do).
#include "fleetsim/kube/kube_scheduler.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "silent_bus.hpp"

namespace fleetsim {
namespace {

// A g5.xlarge as Karpenter sizes it: 4 vCPUs, 16 GiB, one A10G.
Resources gpu_node() {
  Resources r;
  r[resource::kCpu] = 3920;
  r[resource::kMemory] = 14'162LL << 20;
  r[resource::kPods] = 58;
  r[resource::kNvidiaGpu] = 1;
  return r;
}

struct OneGpuFleet {
  explicit OneGpuFleet(int size, NodePhase phase) : scheduler(sim, cluster, bus, [](PodId) {}) {
    spec.requests[resource::kCpu] = 2000;
    spec.requests[resource::kMemory] = 8LL << 30;
    spec.requests[resource::kPods] = 1;
    spec.requests[resource::kNvidiaGpu] = 1;
    spec.tolerations.push_back({.key = "nvidia.com/gpu", .op = TolerationOperator::Exists});
    const WorkloadId llm = cluster.add_workload(
        {.name = "llm", .kind = WorkloadKind::Deployment, .namespace_name = "default"});
    const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
    for (int i = 0; i < size; ++i) {
      Node n;
      n.name = "gpu-" + std::to_string(i);
      n.owner = NodePoolOwner{.pool = 0, .name = "gpu"};
      n.instance_type = "g5.xlarge";
      n.zone = zones[i % 3];
      n.phase = phase;
      n.initialized = phase == NodePhase::Initialized;
      n.allocatable = gpu_node();
      n.taints.push_back(
          {.key = "nvidia.com/gpu", .value = "true", .effect = TaintEffect::NoSchedule});
      n.labels = Requirements::from_labels(
          {{std::string(label::kZone), n.zone}, {std::string(label::kHostname), n.name}});
      cluster.add_node(std::move(n));
    }
    for (int i = 0; i < size; ++i) {
      Pod p;
      p.name = "llm-" + std::to_string(i);
      p.workload = llm;
      p.spec = &spec;
      p.labels = &labels;
      p.namespace_name = "default";
      p.uid = p.name;
      cluster.add_pod(std::move(p));
    }
  }
  void pass() {
    scheduler.request_pass();
    sim.run_until(sim.now());
  }

  Simulation sim{1};
  Cluster cluster;
  SilentBus bus;
  PodSpec spec;
  Labels labels{{"app", "llm"}};
  KubeScheduler scheduler;
};

void BM_BindAll(benchmark::State& state) {
  const int size = static_cast<int>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    OneGpuFleet fleet(size, NodePhase::Initialized);
    state.ResumeTiming();
    fleet.pass();
    benchmark::DoNotOptimize(fleet.cluster.pending_pods().size());
  }
  state.SetItemsProcessed(state.iterations() * size);
}
BENCHMARK(BM_BindAll)->Arg(500)->Arg(2000)->Unit(benchmark::kMillisecond);

void BM_ScaleOut(benchmark::State& state) {
  const int size = static_cast<int>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    OneGpuFleet fleet(size, NodePhase::Registered);
    state.ResumeTiming();
    // A node a second; the pods that failed wait out their backoffs (up to 10 s).
    for (NodeId n = 0; n < static_cast<NodeId>(size); ++n) {
      fleet.cluster.node_initialized(n, fleet.sim.now());
      fleet.scheduler.cluster_changed();
      fleet.sim.run_until(fleet.sim.now() + seconds(1));
    }
    fleet.sim.run_until(fleet.sim.now() + seconds(10));
    if (!fleet.cluster.pending_pods().empty()) state.SkipWithError("pods left pending");
  }
  state.SetItemsProcessed(state.iterations() * size);
}
BENCHMARK(BM_ScaleOut)->Arg(500)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fleetsim

BENCHMARK_MAIN();
