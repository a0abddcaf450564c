// Traffic-source throughput: requests generated per second for the Poisson, diurnal and MMPP
// patterns and for trace replay, the per-request cost the serving model pays before routing.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/traffic/traffic.hpp"

using namespace fleetsim;

namespace {

RngStream bench_stream() { return RngStream(7, "bench/traffic_sources"); }

// Pulls requests through the TrafficSource interface, as the serving model will.
void run(benchmark::State& state, TrafficSource& source) {
  std::int64_t n = 0;
  for (auto _ : state) {
    auto r = source.next();
    benchmark::DoNotOptimize(r);
    ++n;
  }
  state.SetItemsProcessed(n);
}

void BM_Poisson(benchmark::State& state) {
  auto source = make_traffic_source(PoissonConfig{.rps = 100}, bench_stream());
  run(state, *source);
}
BENCHMARK(BM_Poisson);

void BM_PoissonLogNormalTokens(benchmark::State& state) {
  auto source = make_traffic_source(
      PoissonConfig{.rps = 100,
                    .tokens = {.input = TokenDistribution::lognormal(1020, 1),
                               .output = TokenDistribution::lognormal(129, 0.86)}},
      bench_stream());
  run(state, *source);
}
BENCHMARK(BM_PoissonLogNormalTokens);

void BM_Diurnal(benchmark::State& state) {
  auto source =
      make_traffic_source(DiurnalConfig{.mean_rps = 100, .peak_to_trough = 3}, bench_stream());
  run(state, *source);
}
BENCHMARK(BM_Diurnal);

void BM_Mmpp(benchmark::State& state) {
  auto source = make_traffic_source(
      MmppConfig{
          .quiet_rps = 20, .burst_rps = 200, .mean_quiet = seconds(30), .mean_burst = seconds(5)},
      bench_stream());
  run(state, *source);
}
BENCHMARK(BM_Mmpp);

// A synthetic Azure-layout trace of 100,000 rows (about 3.7 MB), written once and replayed in a
// loop, so the measurement covers timestamp parsing and the rewind at each loop.
class AzureTraceFile {
 public:
  AzureTraceFile() {
    path_ = std::filesystem::temp_directory_path() /
            ("fleetsim-bench-azure-" + std::to_string(::getpid()) + ".csv");
    std::ofstream out(path_, std::ios::binary);
    out << "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
    RngStream rng(11, "bench/traffic_sources/trace");
    double t = 0;
    char line[96];
    for (int i = 0; i < kRows; ++i) {
      t += rng.exponential(0.2);
      const auto whole = static_cast<int>(t);
      const auto ticks = static_cast<int>((t - whole) * 1e7);  // .NET 100 ns ticks
      std::snprintf(line, sizeof line, "2023-11-16 %02d:%02d:%02d.%07d,%u,%u\r\n",
                    18 + whole / 3600, whole / 60 % 60, whole % 60, ticks,
                    static_cast<unsigned>(rng.lognormal(1020, 1)) + 1,
                    static_cast<unsigned>(rng.lognormal(129, 0.86)) + 1);
      out << line;
    }
  }
  ~AzureTraceFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  static constexpr int kRows = 100'000;

 private:
  std::filesystem::path path_;
};

void BM_ReplayAzure(benchmark::State& state) {
  static const AzureTraceFile trace;
  auto source =
      make_traffic_source(ReplayConfig{.trace = trace.path(), .loop = true}, bench_stream());
  run(state, *source);
}
BENCHMARK(BM_ReplayAzure);

void BM_ReplayAzureRateScaled(benchmark::State& state) {
  static const AzureTraceFile trace;
  auto source = make_traffic_source(
      ReplayConfig{.trace = trace.path(), .time_scale = 0.5, .rate_scale = 1.5, .loop = true},
      bench_stream());
  run(state, *source);
}
BENCHMARK(BM_ReplayAzureRateScaled);

}  // namespace

BENCHMARK_MAIN();
