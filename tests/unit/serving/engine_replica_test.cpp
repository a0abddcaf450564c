// EngineReplica's closed form against the step-by-step reference engine: the same requests must
// give the same time-to-first-token and per-token-time distributions within 2 % (issue 24's
// bound), over loads, batch limits, lengths and tensor-parallel degrees.
#include "fleetsim/serving/engine_replica.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "fleetsim/serving/reference_engine.hpp"
#include "unit/serving/engine_fixtures.hpp"

namespace fleetsim {
namespace {

struct Lengths {
  std::uint32_t prompt_median;
  std::uint32_t output_median;
  double sigma;  // log-normal spread; 0: fixed
};

std::vector<EngineRequest> poisson(double rps, std::size_t n, Lengths lengths, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rps);
  std::normal_distribution<double> z(0, 1);
  std::vector<EngineRequest> out(n);
  double t = 0;
  for (EngineRequest& r : out) {
    t += gap(rng);
    auto draw = [&](std::uint32_t median) {
      const double x = median * std::exp(lengths.sigma * z(rng));
      return static_cast<std::uint32_t>(std::clamp(std::round(x), 1.0, 16384.0));
    };
    r = {
        .arrival = t, .prompt = draw(lengths.prompt_median), .output = draw(lengths.output_median)};
  }
  return out;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

struct Distribution {
  std::vector<double> ttft, tpot;
};

Distribution distribution(const std::vector<EngineRequest>& requests,
                          const std::vector<EngineOutcome>& outcomes) {
  Distribution d;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    REQUIRE_FALSE(outcomes[i].rejected);
    d.ttft.push_back(outcomes[i].first_token - requests[i].arrival);
    if (requests[i].output > 1)
      d.tpot.push_back((outcomes[i].finished - outcomes[i].first_token) / (requests[i].output - 1));
  }
  return d;
}

void require_close(const std::vector<double>& fast, const std::vector<double>& reference) {
  for (double q : {0.5, 0.9, 0.99}) {
    const double a = quantile(fast, q), b = quantile(reference, q);
    INFO("quantile " << q << ": closed form " << a << " s, reference " << b << " s");
    CHECK(std::abs(a - b) <= 0.02 * b);
  }
}

void compare(const StepCost& cost, const std::vector<EngineRequest>& requests) {
  EngineRunStats ref_stats, fast_stats;
  const auto reference = run_reference_engine(cost, requests, &ref_stats);
  const auto fast = run_closed_form_engine(cost, requests, &fast_stats);
  const Distribution r = distribution(requests, reference);
  const Distribution f = distribution(requests, fast);
  INFO("reference: " << ref_stats.steps << " steps, " << ref_stats.preemptions
                     << " preemptions, peak " << ref_stats.peak_running << " running");
  INFO("closed form: " << fast_stats.preemptions << " preemptions, peak " << fast_stats.peak_running
                       << " running");
  {
    INFO("time to first token");
    require_close(f.ttft, r.ttft);
  }
  {
    INFO("time per output token");
    require_close(f.tpot, r.tpot);
  }
}

TEST_CASE("EngineReplica matches the step-by-step engine over loads and lengths", "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  const double rps = GENERATE(1.0, 8.0, 30.0);
  const Lengths lengths = GENERATE(Lengths{512, 128, 0}, Lengths{1020, 129, 1.0},
                                   Lengths{128, 1024, 0.5}, Lengths{4000, 200, 0.3});
  INFO(rps << " rps, prompt " << lengths.prompt_median << ", output " << lengths.output_median);
  compare(cost, poisson(rps, 2000, lengths, 7));
}

TEST_CASE("EngineReplica matches the step-by-step engine with few sequences and tensor parallelism",
          "[serving]") {
  const std::uint32_t max_seqs = GENERATE(4u, 32u);
  const std::uint32_t tp = GENERATE(2u, 4u);
  EngineOptions options;
  options.max_num_seqs = max_seqs;
  const StepCost cost = test::step_cost(test::llama_70b(), test::h100(), tp, options,
                                        tp == 2 ? NumberFormat::Fp8 : NumberFormat::Bf16);
  INFO("max_num_seqs " << max_seqs << ", TP " << tp);
  compare(cost, poisson(2.0, 1500, Lengths{1000, 300, 0.5}, 11));
}

TEST_CASE("EngineReplica matches the step-by-step engine when the KV cache runs short",
          "[serving]") {
  // A10G: 16 GB of bf16 weights leave about 2 GiB, 15,000 tokens, for the KV cache; long
  // outputs make the running sequences outgrow it and vLLM preempts the newest.
  const StepCost cost = test::step_cost(test::llama_8b(), test::a10g());
  REQUIRE(cost.kv_capacity_tokens() > 4000);
  compare(cost, poisson(0.6, 600, Lengths{600, 700, 0.4}, 5));
}

TEST_CASE("EngineReplica matches the step-by-step engine without chunked prefill", "[serving]") {
  EngineOptions options;
  options.enable_chunked_prefill = false;
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100(), 1, options);
  compare(cost, poisson(10, 2000, Lengths{1020, 129, 0.8}, 3));
}

struct FirstTokens final : EngineListener {
  void on_first_token(std::uint32_t, double at) override { times.push_back(at); }
  void on_finished(std::uint32_t, double) override {}
  void on_rejected(std::uint32_t, double) override {}
  std::vector<double> times;
};

// The step that finishes a prompt is planned with the decode steps after it: the first token is
// no milestone of its own, and the engine reports it when it is brought past it.
TEST_CASE("a first token is planned with the decode steps after it", "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  const double prompt = cost.seconds({.prefill_tokens = 100, .prefill_context = 100 * 50.0});
  const double decode1 = cost.seconds({.decodes = 1, .decode_context = 101});
  const double decode2 = cost.seconds({.decodes = 1, .decode_context = 102});
  FirstTokens tokens;
  EngineReplica engine(cost, tokens);
  engine.add(0, 0, 100, 3);
  // Its two decode steps end the request: that is the next milestone.
  CHECK(engine.next_milestone() == Approx(prompt + decode1 + decode2).epsilon(1e-12));
  engine.sync(prompt / 2);
  CHECK(tokens.times.empty());
  engine.sync(prompt);
  REQUIRE(tokens.times.size() == 1);
  CHECK(tokens.times[0] == prompt);
  CHECK(engine.running() == 1);
}

// A request that arrives during that step waits for its end, which is then a milestone again
// (vLLM admits it to the next step).
TEST_CASE("a request that arrives during a prompt's step is admitted at its end", "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  const double prompt = cost.seconds({.prefill_tokens = 100, .prefill_context = 100 * 50.0});
  FirstTokens tokens;
  EngineReplica engine(cost, tokens);
  engine.add(0, 0, 100, 3);
  engine.add(prompt / 2, 1, 100, 3);
  CHECK(engine.next_milestone() == prompt);
  CHECK(engine.running() == 1);
  CHECK(engine.waiting() == 1);
  engine.advance(prompt);
  CHECK(tokens.times == std::vector<double>{prompt});
  CHECK(engine.running() == 2);
  CHECK(engine.waiting() == 0);
}

// vLLM V1's scheduler allocates the running requests' slots for the step before it admits a
// waiting one (vllm/v1/core/sched/scheduler.py, schedule(): "First, schedule the RUNNING
// requests", then the WAITING ones). A decode whose next token opens a block keeps that block:
// a waiting prompt that fits only without it waits, rather than being admitted and preempted at
// once. Both engines: the request level's and the step-by-step reference. vLLM's own
// tests/v1/core/test_scheduler.py test_preempt_during_execution holds the same order from the
// other side: a running request's next block preempts the newer request that took the room.
TEST_CASE("a waiting prompt is not admitted into the blocks the running decodes' next tokens need",
          "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::a10g());
  const auto blocks = cost.kv_capacity_tokens() / 16;
  // A fills all but three blocks once its prompt is computed, its context then ending a block:
  // its next token opens one more. B's prompt and first token take exactly three.
  const EngineRequest a{
      .arrival = 0, .prompt = static_cast<std::uint32_t>(16 * (blocks - 3) - 1), .output = 17};
  const double a_first_token = run_reference_engine(cost, std::vector{a}).front().first_token;
  const std::vector<EngineRequest> requests{a,
                                            {.arrival = a_first_token, .prompt = 47, .output = 4}};
  for (const bool reference : {true, false}) {
    INFO((reference ? "reference" : "closed form"));
    EngineRunStats stats;
    const std::vector<EngineOutcome> out = reference
                                               ? run_reference_engine(cost, requests, &stats)
                                               : run_closed_form_engine(cost, requests, &stats);
    CHECK(stats.preemptions == 0);
    // B waits for A's blocks: its prompt is computed after A ends.
    CHECK(out[1].first_token > out[0].finished);
  }
}

// The request level's router (ServingModel::dispatch_queue): each request to the replica with the
// fewest in flight, the first among equals, while it holds fewer than max_num_seqs.
TEST_CASE("routed engines take requests as the fewest-in-flight router sends them", "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100(), 1, {.max_num_seqs = 1});
  const std::vector<EngineRequest> requests{{.arrival = 0, .prompt = 100, .output = 3},
                                            {.arrival = 0, .prompt = 200, .output = 3},
                                            {.arrival = 0, .prompt = 100, .output = 3}};
  const auto alone = [&](const EngineRequest& r) {
    return run_closed_form_engine(cost, std::vector{r}).front();
  };
  EngineRunStats stats;
  const std::vector<EngineOutcome> out = run_routed_engines(cost, 2, requests, &stats);
  // The first to replica 0, the second to replica 1; the third waits in the router's queue for
  // the first to end (one sequence each), and runs alone on replica 0 then.
  CHECK(out[0].finished == alone(requests[0]).finished);
  CHECK(out[1].finished == alone(requests[1]).finished);
  CHECK(out[2].dispatched == out[0].finished);
  CHECK(out[2].finished == Approx(out[0].finished + alone(requests[2]).finished).epsilon(1e-12));
  // Two replicas held one request each, running, while the first two ran: 2 × its seconds.
  REQUIRE(stats.holding_seconds.size() >= 2);
  REQUIRE(stats.holding_seconds[1].size() >= 2);
  CHECK(stats.holding_seconds[1][1] >= 2 * out[0].finished);
}

}  // namespace
}  // namespace fleetsim
