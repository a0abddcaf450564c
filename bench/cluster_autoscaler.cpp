// The Cluster Autoscaler's scan on a large node group: 500 m5.2xlarge nodes at 25% CPU, every
// one a scale-down candidate whose pods must be fitted on the others (one solve per candidate
// per scan, as upstream's removal simulation), for half an hour (180 scans, then the first
// removals). Wall time per scan, with the whole run (World, kube-scheduler, the ASGs) in the loop.
#include <benchmark/benchmark.h>
#include <unistd.h>

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

std::string manifests(int nodes) {
  return R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: bench}
managedNodeGroups:
  - name: cpu
    instanceType: m5.2xlarge
    minSize: 0
    maxSize: 1000
    desiredCapacity: )" +
         std::to_string(nodes) + R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: )" +
         std::to_string(2 * nodes) + R"(
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 2Gi}}
)";
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void BM_ClusterAutoscalerScan(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const fs::path dir =
      fs::temp_directory_path() / ("fleetsim-bench-ca-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write(dir / "manifests.yaml", manifests(nodes));
  write(dir / "scenario.yaml",
        "name: bench-ca\nduration: 30m\nprovisioner: cluster-autoscaler\n"
        "kube_controller_manager: {kube_api_qps: 1000, kube_api_burst: 1000}\n"
        "manifests: [manifests.yaml]\n");
  const ScenarioConfig config =
      load_scenario(dir / "scenario.yaml", kSourceDir / "instance-catalog");
  constexpr double kScans = 30 * 60 / 10.0;
  for (auto _ : state) {
    const RunResult result = run(config);
    benchmark::DoNotOptimize(result.cost.total_usd);
  }
  state.counters["ms_per_scan"] =
      benchmark::Counter(kScans * static_cast<double>(state.iterations()) / 1000.0,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  fs::remove_all(dir);
}
BENCHMARK(BM_ClusterAutoscalerScan)->Arg(100)->Arg(500)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
