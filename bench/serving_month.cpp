// The month of issue 14: four diurnal LLM services behind HPAs (about 96 req/s each, a billion
// requests over 30 days), Karpenter, scrapes every 15 s, 5-minute report rows, through the run
// API. The default is a 3-day slice; FLEETSIM_BENCH_DAYS=30 runs the month. Reports simulated
// requests per second of CPU time and the process's peak RSS, request by request and in the
// fluid mode (serving_mode: fluid). BM_ServingWideService runs one service of about 200 replicas.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

using namespace fleetsim;

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = FLEETSIM_SOURCE_DIR;

constexpr std::string_view kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["p5.48xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec: {role: KarpenterNodeRole-bench}
)";

// A Deployment and its HPA on running requests per pod.
std::string service_manifests(int i, int max_replicas) {
  const std::string name = "llm-" + std::to_string(i);
  return "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
         "}\nspec:\n  replicas: 4\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name +
         "}}\n    spec:\n      containers:\n        - name: vllm\n          resources: "
         "{requests: {cpu: \"4\", memory: 32Gi, nvidia.com/gpu: 1}}\n"
         "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: " +
         name +
         "}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: " + name +
         "}\n  minReplicas: 2\n  maxReplicas: " + std::to_string(max_replicas) +
         "\n  metrics:\n    - type: Pods\n      pods:\n"
         "        metric: {name: \"vllm:num_requests_running\"}\n"
         "        target: {type: AverageValue, averageValue: \"6\"}\n";
}

// `services` diurnal services of `mean_rps` each, for `duration` (a scenario duration).
ScenarioConfig load(const std::string& duration, std::string_view mode, int services = 4,
                    int mean_rps = 96, int max_replicas = 40) {
  const fs::path dir =
      fs::temp_directory_path() / ("fleetsim-bench-month-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string manifests(kNodePool);
  std::string scenario =
      "name: bench-month\nseed: 3\nduration: " + duration +
      "\nreport_interval: 5m\nmanifests: [manifests.yaml]\nserving_mode: " + std::string(mode) +
      "\nservices:\n";
  for (int i = 0; i < services; ++i) {
    manifests += service_manifests(i, max_replicas);
    scenario += "  - deployment: llm-" + std::to_string(i) +
                "\n    traffic: {pattern: diurnal, mean_rps: " + std::to_string(mean_rps) +
                ", peak_to_trough: 3, "
                "peak_hour: " +
                std::to_string(12 + 2 * i) +
                ", tokens: {input: {median: 512, sigma: 0.8}, output: {median: 128, sigma: 0.6}}}\n"
                "    serving: {queue_timeout: 60s}\n"
                "    model: {name: llama-3.1-8b}\n"
                "    engine: {max_num_seqs: 16}\n";
  }
  std::ofstream(dir / "manifests.yaml") << manifests;
  std::ofstream(dir / "scenario.yaml") << scenario;
  ScenarioConfig config = load_scenario(dir / "scenario.yaml", kSourceDir / "instance-catalog");
  fs::remove_all(dir);
  return config;
}

void run_scenario(benchmark::State& state, const ScenarioConfig& config) {
  std::uint64_t requests = 0;
  RunResult result;
  for (auto _ : state) {
    result = run(config);
    requests += result.sla.totals.requests;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.SetItemsProcessed(static_cast<std::int64_t>(requests));
  state.counters["requests"] = static_cast<double>(result.sla.totals.requests);
  state.counters["miss_ratio"] = result.sla.totals.miss_ratio;
  state.counters["peak_rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void run_month(benchmark::State& state, std::string_view mode) {
  const char* env = std::getenv("FLEETSIM_BENCH_DAYS");
  const int days = env != nullptr ? std::atoi(env) : 3;
  if (days < 1 || days > 30) throw std::runtime_error("FLEETSIM_BENCH_DAYS: 1 to 30");
  state.counters["days"] = days;
  run_scenario(state, load(std::to_string(days * 24) + "h", mode));
}
void BM_ServingMonth(benchmark::State& state) { run_month(state, "requests"); }
void BM_ServingMonthFluid(benchmark::State& state) { run_month(state, "fluid"); }
BENCHMARK(BM_ServingMonth)->Unit(benchmark::kSecond)->Iterations(1)->MeasureProcessCPUTime();
BENCHMARK(BM_ServingMonthFluid)->Unit(benchmark::kSecond)->Iterations(1)->MeasureProcessCPUTime();

// One wide service instead: 1,500 requests per second over about 200 replicas for 30 minutes,
// where finding the replicas whose engines are due (MilestoneTree) is no longer a scan of a few.
void BM_ServingWideService(benchmark::State& state) {
  run_scenario(state, load("30m", "requests", 1, 1500, 400));
}
BENCHMARK(BM_ServingWideService)->Unit(benchmark::kSecond)->Iterations(1)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
