// How a service serves: its accelerators' LLM rates, its service-time model, and the slots and
// queue of each replica. Plain data, read by the scenario and by ServingModel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// How fast one replica runs an LLM: prompt tokens per second in prefill, and the time between
// output tokens in decode for a request running alone.
struct LlmRates {
  double prefill_tokens_per_s = 0;     // > 0
  double time_per_output_token_s = 0;  // >= 0
};

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

// The engine model (engine_replica.hpp): each replica's speed from its model, GPU and engine,
// given per replica (ReplicaSpec::engine).
struct EngineServiceTime {};

using ServiceTimeModel = std::variant<LlmServiceTime, FixedServiceTime, ExponentialServiceTime,
                                      LogNormalServiceTime, EngineServiceTime>;

struct ServingConfig {
  // Slots per replica (continuous-batching width); > 0. Under the engine model, the most
  // requests the router keeps on a replica: each replica's max_num_seqs, at most this.
  std::uint32_t concurrency = 1;
  ServiceTimeModel service_time = LlmServiceTime{};
  std::optional<SimDuration> queue_timeout;  // nullopt: requests wait as long as it takes
  std::size_t max_queue = 0;                 // 0: unbounded; else arrivals beyond it are dropped
};

}  // namespace fleetsim
