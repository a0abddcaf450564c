// Request-level serving throughput: simulated requests per second of wall time, end to end
// (traffic source, event queue, routing, service times), for one 100-replica service.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "fleetsim/core/time.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "fleetsim/traffic/traffic.hpp"

using namespace fleetsim;

namespace {

// DESIGN.md §8's shape: one service, 100 ready replicas with 8 slots each, Poisson arrivals at
// about 80 % of capacity.
constexpr int kReplicas = 100;
constexpr std::uint32_t kConcurrency = 8;
constexpr double kUtilisation = 0.8;
// Simulated time per benchmark iteration: a few thousand requests, so timer overhead is noise.
constexpr SimDuration kStep = seconds(10);

// An 8B model on one H100 measured at batch 1: 30,000 prompt tokens/s, 6 ms per output token.
constexpr LlmRates kH100Rates{.prefill_tokens_per_s = 30000, .time_per_output_token_s = 0.006};

void run(benchmark::State& state, const ServiceTimeModel& service_time, double mean_service_s,
         const TokenConfig& tokens) {
  Simulation sim(1);
  ServingModel model(
      sim,
      {.concurrency = kConcurrency, .service_time = service_time, .queue_timeout = seconds(60)},
      sim.rng("serving"));
  for (int i = 0; i < kReplicas; ++i) {
    model.add_replica({.id = static_cast<ReplicaId>(i), .rates = kH100Rates}, kSimStart);
  }
  const double rps = kUtilisation * kReplicas * kConcurrency / mean_service_s;
  auto source =
      make_traffic_source(PoissonConfig{.rps = rps, .tokens = tokens}, sim.rng("traffic"));
  model.attach(*source);
  sim.run_until(at(seconds(60)));  // past the empty-system transient
  const std::uint64_t before = model.counters().arrived;
  SimTime until = sim.now();
  for (auto _ : state) {
    until += kStep;
    sim.run_until(until);
  }
  const ServingCounters c = model.counters();
  state.SetItemsProcessed(static_cast<std::int64_t>(c.arrived - before));
  state.counters["in_flight_at_end"] = static_cast<double>(c.in_flight);
  state.counters["dropped"] = static_cast<double>(c.dropped);
}

void BM_ServingExponential(benchmark::State& state) {
  run(state, ExponentialServiceTime{.mean = seconds(1)}, 1.0, TokenConfig{});
}
BENCHMARK(BM_ServingExponential);

// H100 rates, log-normal chat-like token counts (Azure conversation medians 1020 in, 129 out),
// decode slowed by batch occupancy.
void BM_ServingLlm(benchmark::State& state) {
  const LlmRates h100 = kH100Rates;
  constexpr double kAlpha = 0.5;
  constexpr double kInputSigma = 1.0;
  constexpr double kOutputSigma = 0.86;
  // A log-normal's mean is its median × e^(sigma² / 2).
  const double mean_in = kDefaultInputTokens * std::exp(kInputSigma * kInputSigma / 2);
  const double mean_out = kDefaultOutputTokens * std::exp(kOutputSigma * kOutputSigma / 2);
  // The slowdown at the target occupancy (0.8 × 8 slots in flight), per slowdown_factor.
  const double slowdown = 1 + kAlpha * (kUtilisation * kConcurrency - 1) / kConcurrency;
  const double mean_service_s =
      mean_in / h100.prefill_tokens_per_s + mean_out * h100.time_per_output_token_s * slowdown;
  run(state, LlmServiceTime{.slowdown_alpha = kAlpha}, mean_service_s,
      {.input = TokenDistribution::lognormal(kDefaultInputTokens, kInputSigma),
       .output = TokenDistribution::lognormal(kDefaultOutputTokens, kOutputSigma)});
}
BENCHMARK(BM_ServingLlm);

}  // namespace

BENCHMARK_MAIN();
