#include "fleetsim/serving/serving_time.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

using namespace fleetsim;

TEST_CASE("LLM service time is input over prefill rate, then output times tpot", "[serving]") {
  // 30,000 prefill tokens/s, 6 ms per output token.
  const LlmRates fast{.prefill_tokens_per_s = 30000, .time_per_output_token_s = 0.006};
  const ServiceTimes t = llm_service_time(fast, 1200, 100, 0, 1, 8);
  CHECK(t.to_first_token == millis(40));
  CHECK(t.total == millis(40) + millis(600));

  // 9,750 tokens/s, 10 ms per token. 975 / 9,750 s = 100 ms.
  const LlmRates slow{.prefill_tokens_per_s = 9750, .time_per_output_token_s = 0.010};
  const ServiceTimes a = llm_service_time(slow, 975, 7, 0, 1, 1);
  CHECK(a.to_first_token == millis(100));
  CHECK(a.total == millis(170));

  // Sub-microsecond parts round to the nearest µs.
  const ServiceTimes o = llm_service_time(
      {.prefill_tokens_per_s = 3e6, .time_per_output_token_s = 0.0000004}, 1, 1, 0, 1, 1);
  CHECK(o.to_first_token == micros(0));
  CHECK(o.total == micros(0));
}

TEST_CASE("the batch slowdown is 1 + alpha × (in_flight − 1) ÷ concurrency", "[serving]") {
  CHECK(slowdown_factor(0.5, 1, 4) == 1.0);
  CHECK(slowdown_factor(0.5, 3, 4) == 1.25);
  CHECK(slowdown_factor(1.0, 8, 8) == 1.0 + 7.0 / 8.0);
  CHECK(slowdown_factor(0.0, 8, 8) == 1.0);
  // Only decode slows: ttft is unchanged, 100 tokens × 6 ms × 1.25 = 750 ms.
  const ServiceTimes t = llm_service_time(
      {.prefill_tokens_per_s = 30000, .time_per_output_token_s = 0.006}, 1200, 100, 0.5, 3, 4);
  CHECK(t.to_first_token == millis(40));
  CHECK(t.total == millis(40) + millis(750));
}

TEST_CASE("non-LLM service times: fixed exactly, exponential and log-normal by their moments",
          "[serving]") {
  const LlmRates unused{};
  ServiceTimeSampler fixed(FixedServiceTime{.duration = millis(250)}, RngStream(1, "s"));
  const ServiceTimes f = fixed.draw(unused, 0, 0, 1, 1);
  CHECK(f.total == millis(250));
  CHECK(f.to_first_token == f.total);

  constexpr int kDraws = 200'000;
  ServiceTimeSampler exponential(ExponentialServiceTime{.mean = seconds(2)}, RngStream(1, "s"));
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) sum += to_seconds(exponential.draw(unused, 0, 0, 1, 1).total);
  CHECK(sum / kDraws == Approx(2.0).epsilon(0.01));

  ServiceTimeSampler lognormal(LogNormalServiceTime{.median = millis(300), .sigma = 0.7},
                               RngStream(1, "s"));
  std::vector<std::int64_t> draws(kDraws);
  for (auto& d : draws) d = lognormal.draw(unused, 0, 0, 1, 1).total.count();
  std::nth_element(draws.begin(), draws.begin() + kDraws / 2, draws.end());
  CHECK(static_cast<double>(draws[kDraws / 2]) == Approx(300'000).epsilon(0.01));
}
