// Request-level serving throughput through a whole `fleetsim run`: simulated requests per second
// of wall time for one 100-replica service, with the scenario loader, the World (Karpenter, the
// kube-scheduler, node launches, the serving model) and the RunRecorder all in the loop.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

using namespace fleetsim;

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = FLEETSIM_SOURCE_DIR;

// One untainted on-demand pool of 8×H100 nodes (p5.48xlarge): 100 one-GPU replicas fill 13 nodes.
constexpr std::string_view kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: h100
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["p5.48xlarge"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-bench
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: bench
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: bench
)";

std::string deployment(int replicas) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  replicas: )" +
         std::to_string(replicas) +
         R"(
  selector:
    matchLabels:
      app: llm
  template:
    metadata:
      labels:
        app: llm
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          resources:
            requests:
              cpu: "4"
              memory: 32Gi
              nvidia.com/gpu: 1
            limits:
              nvidia.com/gpu: 1
)";
}

// Default behavior (autoscaling/v2's defaults: scale up by 100 % or 4 pods per 15 s, down after a
// 300 s stabilization window).
constexpr std::string_view kHpa = R"(---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: llm
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: llm
  minReplicas: 10
  maxReplicas: 100
  metrics:
    - type: Pods
      pods:
        metric:
          name: vllm:num_requests_running
        target:
          type: AverageValue
          averageValue: "6"
)";

// Measured H100 rates (not the engine model), fixed 256 in / 64 out tokens, no slowdown: 256/30000
// + 64×0.006 ≈ 0.393 s per request, so 100 replicas × 8 slots serve ≈ 2035 rps; 1600 rps is ≈ 80 %
// of that.
constexpr std::string_view kScenario = R"(name: bench-serving-run
seed: 7
duration: 30m
region: us-east-1
manifests:
  - manifests/nodepool.yaml
  - manifests/llm.yaml
services:
  - deployment: llm
    traffic:
      pattern: poisson
      rps: 1600
      tokens: {input: 256, output: 64}
    serving:
      concurrency: 8
      queue_timeout: 60s
      service_time: {model: llm, rates: {prefill_tokens_per_s: 30000, time_per_output_token: 6ms}}
)";

void write(const fs::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

// Writes the scenario into a fresh temp directory, loads it and removes the directory.
ScenarioConfig load(bool with_hpa) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("fleetsim-bench-serving-run-" + std::to_string(::getpid()) + (with_hpa ? "-hpa" : "-fixed"));
  fs::remove_all(dir);
  fs::create_directories(dir / "manifests");
  write(dir / "scenario.yaml", kScenario);
  write(dir / "manifests" / "nodepool.yaml", kNodePool);
  std::string llm = deployment(with_hpa ? 10 : 100);
  if (with_hpa) llm += kHpa;
  write(dir / "manifests" / "llm.yaml", llm);
  ScenarioConfig config = load_scenario(dir / "scenario.yaml", kSourceDir / "instance-catalog");
  fs::remove_all(dir);
  return config;
}

void run(benchmark::State& state, bool with_hpa) {
  const ScenarioConfig config = load(with_hpa);
  std::uint64_t arrived_total = 0;
  RunResult result;
  for (auto _ : state) {
    // Exactly what `fleetsim run` does, less the output files.
    result = fleetsim::run(config);
    arrived_total += result.sla.totals.requests;
  }
  if (result.sla.by_service.size() != 1) throw std::runtime_error("expected one service, llm");
  const SlaResult::Service& service = result.sla.by_service.front();
  state.SetItemsProcessed(static_cast<std::int64_t>(arrived_total));
  state.counters["served"] = static_cast<double>(service.totals.served);
  state.counters["dropped"] = static_cast<double>(service.totals.dropped);
  state.counters["peak_replicas"] = static_cast<double>(service.peak_replicas);
  state.counters["engine_events"] = static_cast<double>(result.engine.events);
}

// 100 replicas from the start; the first ~70 s wait for the nodes.
void BM_ServingRunFixed(benchmark::State& state) { run(state, false); }
BENCHMARK(BM_ServingRunFixed)->Unit(benchmark::kMillisecond)->Iterations(3);

// Starts at 10 replicas; the HPA (running requests per pod, target 6) scales toward 100, so the
// metrics scrapes and the autoscaler are in the loop.
void BM_ServingRunHpa(benchmark::State& state) { run(state, true); }
BENCHMARK(BM_ServingRunHpa)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
