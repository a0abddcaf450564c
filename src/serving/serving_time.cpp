#include "fleetsim/serving/serving_time.hpp"

#include <array>
#include <cmath>
#include <type_traits>

#include "fleetsim/core/ascii_case.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

namespace {

struct GpuRow {
  GpuModel model;
  std::string_view name;
  LlmRates rates;
};

// Rough figures for an 8B-parameter model (Llama-3-8B: 8.03e9 parameters, 16.1 GB of weights)
// in fp16/bf16, one replica per accelerator, derived from datasheet numbers rather than measured:
// - decode is memory-bound: time per output token ≈ weight bytes ÷ (HBM bandwidth × 0.8 achieved);
// - prefill is compute-bound: tokens/s ≈ 50 % of dense fp16 tensor peak ÷ (2 × 8e9 FLOP/token).
// They land within a factor of about 1.5 of public vLLM / TensorRT-LLM single-request
// benchmarks for this model class; scenarios override them (ReplicaSpec::rates) when they know
// their own model and engine. The T4 and L4 rows are nominal: 16 GB of fp16 weights do not leave
// room for a KV cache on a 16 GB T4, so real deployments there quantize.
constexpr std::array<GpuRow, kGpuModelCount> kGpuTable{{
    // T4: 320 GB/s GDDR6, 65 TFLOPS fp16 tensor (NVIDIA T4 datasheet).
    {GpuModel::T4, "T4", {.prefill_tokens_per_s = 2000, .time_per_output_token_s = 0.060}},
    // A10G: 600 GB/s GDDR6, ~70 TFLOPS fp16 tensor (AWS G5 documentation).
    {GpuModel::A10G, "A10G", {.prefill_tokens_per_s = 2200, .time_per_output_token_s = 0.033}},
    // L4: 300 GB/s GDDR6, 121 TFLOPS fp16 tensor dense (NVIDIA L4 datasheet).
    {GpuModel::L4, "L4", {.prefill_tokens_per_s = 3800, .time_per_output_token_s = 0.067}},
    // L40S: 864 GB/s GDDR6, 362 TFLOPS fp16 tensor dense (NVIDIA L40S datasheet).
    {GpuModel::L40S, "L40S", {.prefill_tokens_per_s = 11000, .time_per_output_token_s = 0.023}},
    // A100 80GB SXM: 2,039 GB/s HBM2e, 312 TFLOPS fp16 tensor dense (NVIDIA A100 datasheet).
    {GpuModel::A100, "A100", {.prefill_tokens_per_s = 9750, .time_per_output_token_s = 0.010}},
    // H100 SXM: 3,350 GB/s HBM3, 989 TFLOPS fp16 tensor dense (NVIDIA H100 datasheet).
    {GpuModel::H100, "H100", {.prefill_tokens_per_s = 30000, .time_per_output_token_s = 0.006}},
    // H200: 4,800 GB/s HBM3e, same compute as H100 (NVIDIA H200 datasheet).
    {GpuModel::H200, "H200", {.prefill_tokens_per_s = 30000, .time_per_output_token_s = 0.0042}},
    // Inferentia2, one chip (2 NeuronCores): 820 GB/s HBM, 190 TFLOPS fp16 (AWS Inf2 docs).
    {GpuModel::Inferentia2,
     "Inferentia2",
     {.prefill_tokens_per_s = 5900, .time_per_output_token_s = 0.025}},
}};

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kGpuTable.size(); ++i) {
    if (static_cast<std::size_t>(kGpuTable[i].model) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order());

SimDuration round_us(double us) { return SimDuration{round_to_int64(us)}; }

}  // namespace

std::string_view to_string(GpuModel model) {
  return kGpuTable[static_cast<std::size_t>(model)].name;
}

std::optional<GpuModel> parse_gpu_model(std::string_view name) {
  for (const GpuRow& row : kGpuTable) {
    if (iequals(row.name, name)) return row.model;
  }
  return std::nullopt;
}

LlmRates default_llm_rates(GpuModel model) {
  return kGpuTable[static_cast<std::size_t>(model)].rates;
}

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
