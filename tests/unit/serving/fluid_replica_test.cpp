// The fluid replica's steady state against the request-level engine (EngineReplica, behind a
// router) under Poisson arrivals: the saturation rate, and the TTFT, per-token time and
// end-to-end quantiles at 30 % and 60 % of it. The tolerances are what the steady state achieves
// today; issue 29 asks 15 % of the whole fluid mode.
#include "fleetsim/serving/fluid_replica.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "fleetsim/serving/reference_engine.hpp"
#include "unit/serving/engine_fixtures.hpp"

namespace fleetsim {
namespace {

struct Lengths {
  double prompt_median;
  double output_median;
  double sigma;  // log-normal spread
};

std::uint32_t draw(std::mt19937_64& rng, double median, double sigma) {
  std::normal_distribution<double> z(0, 1);
  return static_cast<std::uint32_t>(
      std::clamp(std::round(median * std::exp(sigma * z(rng))), 1.0, 8192.0));
}

std::vector<RequestMix::Lengths> mix_samples(Lengths l, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<RequestMix::Lengths> out(n);
  for (auto& s : out) {
    s.prompt = draw(rng, l.prompt_median, l.sigma);
    s.output = draw(rng, l.output_median, l.sigma);
  }
  return out;
}

std::vector<EngineRequest> poisson(double rps, double seconds, Lengths l, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rps);
  std::vector<EngineRequest> out;
  for (double t = gap(rng); t < seconds; t += gap(rng)) {
    const std::uint32_t prompt = draw(rng, l.prompt_median, l.sigma);
    out.push_back({.arrival = t, .prompt = prompt, .output = draw(rng, l.output_median, l.sigma)});
  }
  return out;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

void require_within(double fluid, double request_level, double tolerance, const char* what) {
  INFO(what << ": fluid " << fluid << ", request level " << request_level);
  CHECK(std::abs(fluid - request_level) <= tolerance * request_level);
}

// The request-level run's latencies after a warm-up, against the fluid replica's at that rate.
// `ttft_p99_tolerance` 0: not held (nearer saturation the request level's tail is the wait for
// one of max_num_seqs, which the fluid service adds apart: slot_wait.hpp).
void compare_at(const StepCost& cost, Lengths lengths, double load, double ttft_tolerance,
                double ttft_p99_tolerance) {
  const RequestMix mix(mix_samples(lengths, 512, 7));
  const FluidReplica fluid(cost, mix);
  const double rate = load * fluid.saturation().rate;
  const double horizon = 4000 / rate;  // some 4,000 requests
  const std::vector<EngineRequest> requests = poisson(rate, horizon, lengths, 11);
  const std::vector<EngineOutcome> out = run_closed_form_engine(cost, requests);
  std::vector<double> ttft, tpot, e2e;
  for (std::size_t i = requests.size() / 10; i < requests.size(); ++i) {
    ttft.push_back(out[i].first_token - requests[i].arrival);
    e2e.push_back(out[i].finished - requests[i].arrival);
    if (requests[i].output > 1)
      tpot.push_back((out[i].finished - out[i].first_token) / (requests[i].output - 1));
  }
  const OperatingPoint at = fluid.at_rate(rate);
  std::vector<double> fluid_ttft, fluid_e2e, fluid_ttft_drawn;
  for (const RequestMix::Lengths& s : mix.samples()) {
    fluid_ttft.push_back(fluid.time_to_first_token(s.prompt, at));
    fluid_e2e.push_back(fluid_ttft.back() + (s.output - 1) * at.step_seconds);
    // As reports draw it: the rest of the step under way at evenly spread quantiles.
    for (int k = 1; k <= 16; ++k) {
      const double u = std::fmod(k * 0.6180339887498949 + s.prompt * 0.7548776662466927, 1.0);
      fluid_ttft_drawn.push_back(fluid.time_to_first_token(s.prompt, at, u));
    }
  }
  INFO("load " << load << ", saturation " << fluid.saturation().rate << " req/s");
  require_within(mean(fluid_ttft), mean(ttft), ttft_tolerance, "mean TTFT");
  require_within(mean(fluid_ttft_drawn), mean(ttft), ttft_tolerance, "mean TTFT drawn");
  if (ttft_p99_tolerance > 0) {
    require_within(quantile(fluid_ttft_drawn, 0.5), quantile(ttft, 0.5), ttft_p99_tolerance,
                   "TTFT p50");
    require_within(quantile(fluid_ttft_drawn, 0.99), quantile(ttft, 0.99), ttft_p99_tolerance,
                   "TTFT p99");
  }
  require_within(at.step_seconds, mean(tpot), 0.15, "mean TPOT");
  require_within(quantile(fluid_e2e, 0.5), quantile(e2e, 0.5), 0.15, "e2e p50");
  require_within(quantile(fluid_e2e, 0.99), quantile(e2e, 0.99), 0.15, "e2e p99");
  require_within(fluid.mean_latency(at) * rate, mean(e2e) * rate, 0.15, "requests in flight");
}

// Overloaded, the router keeps the engine full: what it serves is its saturation rate. Where the
// KV cache binds, the engine preempts and prefills again what it preempted, and long prompts
// leave part of the cache idle: the closed forms, on the mean request's blocks, came within
// +9.4 % (Llama-3.1-8B on an H100), −0.6 % (on an A10G), +0.8 % (70B on four H100s) and −0.3 %
// (SGLang). The fluid replica now measures the engine where its cache can bind
// (measured_saturation): within 1 %.
void compare_saturation(const StepCost& cost, Lengths lengths) {
  const RequestMix mix(mix_samples(lengths, 512, 7));
  const FluidReplica fluid(cost, mix);
  const double rate = 1.5 * fluid.saturation().rate;
  const std::vector<EngineRequest> requests = poisson(rate, 6000 / rate, lengths, 13);
  const std::vector<EngineOutcome> out = run_closed_form_engine(cost, requests);
  // Served per second between the 1,000th and the 3,000th completion, well inside the overload.
  std::vector<double> done;
  for (const EngineOutcome& o : out) done.push_back(o.finished);
  std::sort(done.begin(), done.end());
  const double served = 2000 / (done[3000] - done[1000]);
  require_within(fluid.saturation().rate, served, 0.02, "saturation rate");
}

TEST_CASE("A fluid replica's saturation rate is the request-level engine's under overload") {
  SECTION("Llama-3.1-8B on an H100: chat lengths") {
    compare_saturation(test::step_cost(test::llama_8b(), test::h100()), {512, 256, 0.6});
  }
  SECTION("Llama-3.1-8B on an A10G: the KV cache binds") {
    compare_saturation(test::step_cost(test::llama_8b(), test::a10g()), {1024, 256, 0.6});
  }
  SECTION("Llama-3.1-70B on four H100s") {
    compare_saturation(test::step_cost(test::llama_70b(), test::h100(), 4), {512, 256, 0.6});
  }
  SECTION("Llama-3.1-8B on an H100 with max_num_seqs 64") {
    compare_saturation(test::step_cost(test::llama_8b(), test::h100(), 1, {.max_num_seqs = 64}),
                       {512, 256, 0.6});
  }
  SECTION("Llama-3.1-8B on an H100 under SGLang: prompt steps apart") {
    compare_saturation(
        test::step_cost(test::llama_8b(), test::h100(), 1, {.kind = EngineKind::Sglang}),
        {512, 256, 0.6});
  }
}

TEST_CASE("A fluid replica's latencies match the request-level engine's below saturation") {
  // Nearer saturation the TTFT also holds the time a request waits inside the engine for KV-cache
  // room or a sequence slot, which the steady state does not model. At 30 % the TTFT's tail is the
  // wait for the prompt steps under way: its p99 was 20-23 % short while every prompt's step was
  // taken at the mean prompt's length, 14-18 % since the step a request lands in is size-biased.
  for (auto [load, ttft_tolerance, p99_tolerance] :
       {std::tuple{0.3, 0.15, 0.18}, std::tuple{0.6, 0.30, 0.0}}) {
    SECTION("Llama-3.1-8B on an H100 at load " + std::to_string(load)) {
      compare_at(test::step_cost(test::llama_8b(), test::h100()), {512, 256, 0.6}, load,
                 ttft_tolerance, p99_tolerance);
    }
    SECTION("Llama-3.1-8B on an A10G at load " + std::to_string(load)) {
      compare_at(test::step_cost(test::llama_8b(), test::a10g()), {1024, 256, 0.6}, load,
                 ttft_tolerance, p99_tolerance);
    }
    SECTION("Llama-3.1-70B on four H100s at load " + std::to_string(load)) {
      compare_at(test::step_cost(test::llama_70b(), test::h100(), 4), {512, 256, 0.6}, load,
                 ttft_tolerance, p99_tolerance);
    }
  }
}

// Llama-3.1-8B on an L40S at gpu_memory_utilization 0.4 keeps about 4,000 tokens of KV cache:
// four or five requests of a log-normal mix (σ 0.8, prompts up to 4,000 tokens), where it admits
// eight. Prompts wait for room behind a long one, and the router sends fewer to a stalled replica.
StepCost small_cache() {
  return test::step_cost(test::llama_8b(), test::l40s(), 1,
                         {.max_num_seqs = 8, .gpu_memory_utilization = 0.4, .max_model_len = 4096});
}

// `replicas` engines behind the router at `rate` requests per second each, on the test's own
// draws (the table drew its own): the time to first token from dispatch and the router's wait,
// after a warm-up. Five runs of 20,000 requests: one run's mean wait for KV room varies by 15 %.
struct Routed {
  std::vector<double> first_token, router_wait;
  double preemptions = 0;
};
Routed run_routed(const StepCost& cost, Lengths lengths, double rate, std::uint32_t replicas) {
  Routed r;
  double requested = 0;
  for (unsigned seed = 17; seed < 22; ++seed) {
    const std::vector<EngineRequest> requests =
        poisson(rate * replicas, 20000 / (rate * replicas), lengths, seed);
    EngineRunStats stats;
    const std::vector<EngineOutcome> out = run_routed_engines(cost, replicas, requests, &stats);
    r.preemptions += static_cast<double>(stats.preemptions);
    requested += static_cast<double>(out.size());
    for (std::size_t i = requests.size() / 10; i < requests.size(); ++i) {
      if (out[i].rejected) continue;
      r.first_token.push_back(out[i].first_token - out[i].dispatched);
      r.router_wait.push_back(out[i].dispatched - requests[i].arrival);
    }
  }
  r.preemptions /= requested;
  return r;
}

TEST_CASE("where the KV cache binds a fluid replica reads the engine measured behind the router") {
  const StepCost cost = small_cache();
  const Lengths lengths{512, 150, 0.8};
  const RequestMix mix(mix_samples(lengths, 4096, 7));
  const FluidReplica fluid(cost, mix);
  const KvBoundTable& measured = fluid.measured();
  REQUIRE_FALSE(measured.empty());
  INFO("KV cache " << cost.kv_capacity_tokens() << " tokens");

  // The closed forms' saturation is 8 % above the engine's here; the fluid replica's is its own.
  compare_saturation(cost, lengths);

  // At 60 % of it, on 1, 2 and 4 replicas (4 interpolated between 2 and 8 would miss; it is
  // measured): the time to first token's median and tail, and the router's mean wait.
  const double rate = 0.6 * fluid.saturation().rate;
  for (const std::uint32_t replicas : {1U, 2U, 4U}) {
    INFO(replicas << " replicas");
    const Routed r = run_routed(cost, lengths, rate, replicas);
    std::vector<double> drawn_first, drawn_router;
    for (int k = 0; k < 4096; ++k) {
      const double u = (k + 0.5) / 4096;
      drawn_first.push_back(measured.first_token(rate, replicas, u));
      drawn_router.push_back(measured.router_wait(rate, replicas, u));
    }
    require_within(quantile(drawn_first, 0.5), quantile(r.first_token, 0.5), 0.1, "TTFT p50");
    require_within(quantile(drawn_first, 0.95), quantile(r.first_token, 0.95), 0.2, "TTFT p95");
    require_within(quantile(drawn_first, 0.99), quantile(r.first_token, 0.99), 0.2, "TTFT p99");
    require_within(measured.mean_first_token(rate, replicas), mean(r.first_token), 0.15,
                   "mean TTFT");
    // The router's wait is rare at 60 %, and small beside the TTFT: half, or a tenth of a second.
    INFO("router's mean wait: fluid " << mean(drawn_router) << ", request level "
                                      << mean(r.router_wait));
    CHECK(std::abs(mean(drawn_router) - mean(r.router_wait)) <=
          std::max(0.5 * mean(r.router_wait), 0.1));
    require_within(measured.preemptions(rate, replicas), r.preemptions, 0.2, "preemptions");
  }
  // A stalled replica gets fewer requests from the router: prompts wait less with more replicas.
  CHECK(measured.mean_first_token(rate, 8) < 0.7 * measured.mean_first_token(rate, 1));
}

TEST_CASE(
    "a fluid replica whose KV cache holds max_num_seqs of the longest requests is not measured") {
  const RequestMix mix(mix_samples({512, 256, 0.6}, 512, 7));
  CHECK(FluidReplica(test::step_cost(test::llama_8b(), test::h100()), mix).measured().empty());
}

// Reports pick their requests' lengths at evenly spread quantiles of the output lengths (taken in
// turn from the mix, 960 of an interval were a random subset of it and its p99 missed by 10-15 %).
TEST_CASE("a request mix is ordered by output length for its quantiles") {
  const RequestMix mix({{.prompt = 9, .output = 300},
                        {.prompt = 5, .output = 0},
                        {.prompt = 7, .output = 40},
                        {.prompt = 3, .output = 40}});
  CHECK(mix.at_quantile(0).output == 1);  // the engine always yields a token
  CHECK(mix.at_quantile(0.25).prompt == 3);
  CHECK(mix.at_quantile(0.5).prompt == 7);
  CHECK(mix.at_quantile(0.99).output == 300);
  CHECK(mix.prompt() == 6);
}

// The renewal residual of steps b0 + b1 i over prompts {1, 3}: steps of 1 and 3 s (b1 = 1), E[B] =
// 2. P(R > r) = (2 − r) ÷ 2 up to 1 s, (3 − r) ÷ 4 beyond; the mean E[B²] ÷ 2 E[B] = 1.25 s.
TEST_CASE("an arrival lands in a step at the renewal residual of the steps' lengths") {
  const RequestMix mix({{.prompt = 3, .output = 9}, {.prompt = 1, .output = 9}});
  CHECK(mix.residual_quantile(0, 1, 0.25).rest == Approx(0.5));
  CHECK(mix.residual_quantile(0, 1, 0.25).step == Approx(2));  // either step, by its mean
  CHECK(mix.residual_quantile(0, 1, 0.5).rest == Approx(1));
  CHECK(mix.residual_quantile(0, 1, 0.75).rest == Approx(2));
  CHECK(mix.residual_quantile(0, 1, 0.75).step == Approx(3));   // only the long step has 2 s left
  CHECK(mix.residual_quantile(2, 0, 0.3).rest == Approx(0.6));  // equal steps: uniform
  double sum = 0;
  constexpr int kPoints = 100000;
  for (int k = 0; k < kPoints; ++k) sum += mix.residual_quantile(0, 1, (k + 0.5) / kPoints).rest;
  CHECK(sum / kPoints == Approx(1.25).epsilon(1e-4));
}

// The fluid gauges' draw (FluidServing::load): a count with the mean and variance asked for,
// Poisson at a variance of the mean or more, binomial below. Moments over an even grid of u.
TEST_CASE("count_quantile draws a count with the mean and variance asked for") {
  for (auto [mean_asked, variance_asked] :
       {std::pair{0.5, 0.25}, std::pair{4.0, 2.0}, std::pair{12.0, 11.5}, std::pair{6.0, 9.0},
        std::pair{50.0, 25.0}, std::pair{400.0, 150.0}}) {
    constexpr int kDraws = 200000;
    double sum = 0, sum2 = 0;
    for (int k = 0; k < kDraws; ++k) {
      const double x = count_quantile(mean_asked, variance_asked, (k + 0.5) / kDraws);
      CHECK(x == std::floor(x));
      sum += x;
      sum2 += x * x;
    }
    const double m = sum / kDraws, v = sum2 / kDraws - m * m;
    INFO("asked " << mean_asked << " / " << variance_asked << ", drawn " << m << " / " << v);
    CHECK(m == Approx(mean_asked).epsilon(0.01).margin(0.01));
    // At a variance above the mean the draw is Poisson: its variance is the mean.
    CHECK(v == Approx(std::min(mean_asked, variance_asked)).epsilon(0.06));
  }
  CHECK(count_quantile(0, 0, 0.7) == 0);
  CHECK(count_quantile(5, 0, 0.99) == 5);  // no variance: the mean itself
}

}  // namespace
}  // namespace fleetsim
