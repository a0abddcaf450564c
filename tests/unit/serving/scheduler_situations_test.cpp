// Situations from the engines' schedulers, run through both of fleetsim's engines: vLLM's V1
// scheduler tests (tests/v1/core/test_scheduler.py) and SGLang's step choice. Upstream asserts the
// tokens each step schedules; here each step's tokens fix its StepWork, so the first-token times
// are sums of StepCost::seconds and exact.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "fleetsim/serving/engine_replica.hpp"
#include "fleetsim/serving/reference_engine.hpp"
#include "unit/serving/engine_fixtures.hpp"

namespace fleetsim {
namespace {

// Both engines give every request its expected first-token time.
void require_first_tokens(const StepCost& cost, const std::vector<EngineRequest>& requests,
                          const std::vector<double>& expected) {
  const std::vector<EngineOutcome> reference = run_reference_engine(cost, requests);
  const std::vector<EngineOutcome> closed_form = run_closed_form_engine(cost, requests);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    INFO("request " << i);
    CHECK(std::abs(reference[i].first_token - expected[i]) <= 1e-12);
    CHECK(std::abs(closed_form[i].first_token - expected[i]) <= 1e-9 * expected[i]);
  }
}

// A prompt chunk of `tokens` after `done` tokens of its prompt: the (query, key) pairs it spans.
double chunk_pairs(double done, double tokens) { return tokens * (done + tokens / 2); }

// test_schedule: ten 10-token prompts arrive together; the budget holds them all, so the first
// step schedules every one whole and all ten first tokens come at its end.
TEST_CASE("vLLM test_schedule: prompts within the token budget are all scheduled whole at once",
          "[serving][upstream]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  const std::vector<EngineRequest> requests(10, EngineRequest{.prompt = 10, .output = 16});
  const double step =
      cost.seconds({.prefill_tokens = 100, .prefill_context = 10 * chunk_pairs(0, 10)});
  require_first_tokens(cost, requests, std::vector<double>(10, step));
}

// test_schedule_concurrent_partial_requests, without long_prefill_token_threshold (fleetsim
// does not model it; at 0, vLLM's default, no request is capped): three 800-token prompts under
// a 1,024-token budget are chunked first come, first served. Step 1: 800 of the first and 224 of
// the second. Step 2: the first's decode, 576 of the second and 447 of the third. Step 3: both
// decodes and the third's last 353.
TEST_CASE(
    "vLLM test_schedule_concurrent_partial_requests: the budget is split first come first served",
    "[serving][upstream]") {
  EngineOptions options;
  options.max_num_batched_tokens = 1024;
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100(), 1, options);
  const std::vector<EngineRequest> requests(3, EngineRequest{.prompt = 800, .output = 16});
  const double step1 = cost.seconds(
      {.prefill_tokens = 1024, .prefill_context = chunk_pairs(0, 800) + chunk_pairs(0, 224)});
  const double step2 =
      cost.seconds({.decodes = 1,
                    .decode_context = 801,
                    .prefill_tokens = 576 + 447,
                    .prefill_context = chunk_pairs(224, 576) + chunk_pairs(0, 447)});
  const double step3 = cost.seconds({.decodes = 2,
                                     .decode_context = 802 + 801,
                                     .prefill_tokens = 353,
                                     .prefill_context = chunk_pairs(447, 353)});
  require_first_tokens(cost, requests, {step1, step1 + step2, step1 + step2 + step3});

  // As upstream's scheduler output says: the first step takes two of them; the third waits,
  // holding no KV blocks, until a step has tokens left for it.
  struct Quiet final : EngineListener {
    void on_first_token(std::uint32_t, double) override {}
    void on_finished(std::uint32_t, double) override {}
    void on_rejected(std::uint32_t, double) override {}
  } quiet;
  EngineReplica engine(cost, quiet);
  for (std::uint32_t slot = 0; slot < 3; ++slot) engine.add(0, slot, 800, 16);
  CHECK(engine.running() == 2);
  CHECK(engine.waiting() == 1);
  engine.advance(step1);
  CHECK(engine.running() == 3);
  CHECK(engine.waiting() == 0);
}

// SGLang's scheduler (managers/scheduler.py, get_next_batch_to_run) runs a prefill batch when it
// can, else a decode batch, never both (enable_mixed_chunk is off by default): a prompt that
// arrives while another request decodes gets a step of its own, and the decodes wait for it.
TEST_CASE("SGLang runs a new prompt in a step of its own and the decodes wait for it",
          "[serving][upstream]") {
  EngineOptions options;
  options.kind = EngineKind::Sglang;
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100(), 1, options);
  REQUIRE_FALSE(cost.limits().mixed_steps);
  const double prompt_step =
      cost.seconds({.prefill_tokens = 100, .prefill_context = chunk_pairs(0, 100)});
  const double first_decode = cost.seconds({.decodes = 1, .decode_context = 101});
  // The second request arrives during the first's first decode step and is prefilled after it,
  // alone.
  const std::vector<EngineRequest> requests{
      {.arrival = 0, .prompt = 100, .output = 50},
      {.arrival = prompt_step + first_decode / 2, .prompt = 100, .output = 50}};
  require_first_tokens(cost, requests, {prompt_step, prompt_step + first_decode + prompt_step});
}

}  // namespace
}  // namespace fleetsim
