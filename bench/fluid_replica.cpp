// What a fluid replica costs to build: its closed forms alone (the cache holds max_num_seqs of
// the longest requests), and where the KV cache binds, with the engine measured behind the router
// (KvBoundTable: 41 runs of 21,000 requests). Each engine a service runs on builds one, once.
#include "fleetsim/serving/fluid_replica.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/serving/model_catalog.hpp"

using namespace fleetsim;

namespace {

namespace fs = std::filesystem;

// The time-sliced scenario's replica (gpu-sharing/time-sliced-l40s.yaml): Llama-3.1-8B in fp8 on
// g6e.xlarge's L40S, at gpu_memory_utilization 0.25 about 4,700 tokens of KV cache, eight
// sequences.
StepCost l40s_cost(double gpu_memory_utilization) {
  static const Catalog catalog =
      load_catalog(fs::path(FLEETSIM_SOURCE_DIR) / "instance-catalog/aws/us-east-1");
  const GpuHardware& l40s = *catalog.find("g6e.xlarge")->gpu_hardware;
  const ServedModel model{.spec = *bundled_model_catalog().find("llama-3.1-8b"),
                          .weights = NumberFormat::Fp8,
                          .kv_cache = NumberFormat::Fp8};
  const EngineOptions options{
      .max_num_seqs = 8, .gpu_memory_utilization = gpu_memory_utilization, .max_model_len = 4096};
  return StepCost(model, {.gpu = l40s}, resolve(options, l40s, 1));
}

// Its traffic: log-normal prompts (median 512, σ 0.8) and outputs (median 150, σ 0.6).
RequestMix chat_mix() {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0, 1);
  std::vector<RequestMix::Lengths> samples(4096);
  for (auto& s : samples) {
    s.prompt = static_cast<std::uint32_t>(std::round(512 * std::exp(0.8 * z(rng))));
    s.output = static_cast<std::uint32_t>(std::round(150 * std::exp(0.6 * z(rng))));
  }
  return RequestMix(std::move(samples));
}

void build(benchmark::State& state, double gpu_memory_utilization, bool measured) {
  const StepCost cost = l40s_cost(gpu_memory_utilization);
  const RequestMix mix = chat_mix();
  for (auto _ : state) {
    const FluidReplica replica(cost, mix);
    if (replica.measured().empty() == measured) state.SkipWithError("not the case measured");
    benchmark::DoNotOptimize(replica.saturation().rate);
  }
}

void BM_FluidReplicaClosedForm(benchmark::State& state) { build(state, 0.9, false); }
void BM_FluidReplicaKvBound(benchmark::State& state) { build(state, 0.25, true); }

}  // namespace

BENCHMARK(BM_FluidReplicaClosedForm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FluidReplicaKvBound)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
