#include "fleetsim/serving/serving_time.hpp"

#include <cmath>
#include <type_traits>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

namespace {

SimDuration round_us(double us) { return SimDuration{round_to_int64(us)}; }

}  // namespace

double slowdown_factor(double alpha, std::uint32_t in_flight, std::uint32_t concurrency) {
  FLEETSIM_ASSERT(concurrency > 0 && in_flight >= 1);
  return 1.0 + alpha * static_cast<double>(in_flight - 1) / static_cast<double>(concurrency);
}

ServiceTimes llm_service_time(const LlmRates& rates, std::uint32_t input_tokens,
                              std::uint32_t output_tokens, double alpha, std::uint32_t in_flight,
                              std::uint32_t concurrency) {
  const SimDuration ttft =
      round_us(static_cast<double>(input_tokens) * 1e6 / rates.prefill_tokens_per_s);
  const SimDuration decode =
      round_us(static_cast<double>(output_tokens) * rates.time_per_output_token_s * 1e6 *
               slowdown_factor(alpha, in_flight, concurrency));
  return {.to_first_token = ttft, .total = ttft + decode};
}

ServiceTimeSampler::ServiceTimeSampler(const ServiceTimeModel& model, RngStream rng)
    : model_(model), rng_(rng) {}

ServiceTimes ServiceTimeSampler::draw(const LlmRates& rates, std::uint32_t input_tokens,
                                      std::uint32_t output_tokens, std::uint32_t in_flight,
                                      std::uint32_t concurrency) {
  return std::visit(
      [&](const auto& m) -> ServiceTimes {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, LlmServiceTime>) {
          return llm_service_time(rates, input_tokens, output_tokens, m.slowdown_alpha, in_flight,
                                  concurrency);
        } else {
          SimDuration d{};
          if constexpr (std::is_same_v<M, FixedServiceTime>) {
            d = m.duration;
          } else if constexpr (std::is_same_v<M, ExponentialServiceTime>) {
            d = round_us(rng_.exponential(static_cast<double>(m.mean.count())));
          } else if constexpr (std::is_same_v<M, LogNormalServiceTime>) {
            d = round_us(rng_.lognormal(static_cast<double>(m.median.count()), m.sigma));
          }  // EngineServiceTime: the replica's engine times it; never drawn
          return {.to_first_token = d, .total = d};
        }
      },
      model_);
}

}  // namespace fleetsim
