// Service times for the serving model: the LLM service time from measured rates, the batching
// slowdown, and the sampler of each service-time model.
#pragma once

#include <cstdint>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/serving/serving_settings.hpp"

namespace fleetsim {

// When a started request produces its first token and when it completes, relative to its start.
// Non-LLM services produce their whole answer at once: to_first_token == total.
struct ServiceTimes {
  SimDuration to_first_token{};
  SimDuration total{};
};

// The decode slowdown of continuous batching: 1 + alpha × (in_flight − 1) ÷ concurrency, where
// in_flight counts the replica's requests including the one starting. Linear in occupancy because
// decode is memory-bound: each step re-reads the weights once for the batch, and the extra cost
// per added sequence (its KV cache reads) is roughly constant. A request alone runs at the
// table's rate; a full batch runs alpha × (c − 1) ÷ c slower. It is evaluated once, when the
// request starts, and held for its life (requests joining later do not slow it down further) —
// which keeps the completion a single event.
double slowdown_factor(double alpha, std::uint32_t in_flight, std::uint32_t concurrency);

// Exact LLM timing, each part rounded to the microsecond: ttft = input ÷ prefill; total = ttft +
// output × tpot × slowdown_factor.
ServiceTimes llm_service_time(const LlmRates& rates, std::uint32_t input_tokens,
                              std::uint32_t output_tokens, double alpha, std::uint32_t in_flight,
                              std::uint32_t concurrency);

// Draws service times for one service from its own stream. LLM and fixed times draw nothing.
class ServiceTimeSampler {
 public:
  ServiceTimeSampler(const ServiceTimeModel& model, RngStream rng);

  ServiceTimes draw(const LlmRates& rates, std::uint32_t input_tokens, std::uint32_t output_tokens,
                    std::uint32_t in_flight, std::uint32_t concurrency);

 private:
  ServiceTimeModel model_;
  RngStream rng_;
};

}  // namespace fleetsim
