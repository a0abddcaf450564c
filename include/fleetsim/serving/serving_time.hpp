// Service-time models for the serving model: the per-GPU LLM rate table and the non-LLM shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// The accelerators the default LLM rate table knows. Names follow the instance catalog's
// GPU names (GpuName / accelerator name), so a replica's model comes from its node.
enum class GpuModel : std::uint8_t { T4, A10G, L4, L40S, A100, H100, H200, Inferentia2 };
inline constexpr std::size_t kGpuModelCount = static_cast<std::size_t>(GpuModel::Inferentia2) + 1;

std::string_view to_string(GpuModel model);
// Case-insensitive match on the names of to_string; nullopt for anything else.
std::optional<GpuModel> parse_gpu_model(std::string_view name);

// How fast one replica runs an LLM: prompt tokens per second in prefill, and the time between
// output tokens in decode for a request running alone.
struct LlmRates {
  double prefill_tokens_per_s = 0;     // > 0
  double time_per_output_token_s = 0;  // >= 0
};

// The default table (see serving_time.cpp for how each figure is derived). These are rough
// figures for one replica serving an 8B-parameter model in fp16 on one accelerator; a scenario
// overrides them per replica (ReplicaSpec::rates) for its own model and engine.
LlmRates default_llm_rates(GpuModel model);

// LLM service: time to first token = input ÷ prefill rate; then output × time per output token,
// slowed by batch occupancy (see slowdown_factor). alpha = 0: no slowdown.
struct LlmServiceTime {
  double slowdown_alpha = 0;  // >= 0
};
// Every request takes exactly `duration`.
struct FixedServiceTime {
  SimDuration duration{};
};
// Exponentially distributed with the given mean (the M/M/c service of queueing theory).
struct ExponentialServiceTime {
  SimDuration mean{};
};
// Log-normal: median e^mu and shape sigma of the underlying normal.
struct LogNormalServiceTime {
  SimDuration median{};
  double sigma = 0;
};

using ServiceTimeModel =
    std::variant<LlmServiceTime, FixedServiceTime, ExponentialServiceTime, LogNormalServiceTime>;

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
