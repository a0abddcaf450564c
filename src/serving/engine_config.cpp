#include "fleetsim/serving/engine_config.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace fleetsim {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

constexpr std::array<std::string_view, 3> kEngineNames{"vllm", "tensorrt-llm", "sglang"};

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::string_view to_string(EngineKind kind) { return kEngineNames[static_cast<std::size_t>(kind)]; }

std::optional<EngineKind> parse_engine_kind(std::string_view name) {
  for (std::size_t i = 0; i < kEngineNames.size(); ++i)
    if (iequals(name, kEngineNames[i])) return static_cast<EngineKind>(i);
  if (iequals(name, "trtllm") || iequals(name, "trt-llm")) return EngineKind::TensorRtLlm;
  return std::nullopt;
}

// Fitted on the published measurements of tests/serving/calibration (README, "Serving speed").
EngineCalibration default_calibration(EngineKind kind) {
  switch (kind) {
    case EngineKind::Vllm:
      return {.bandwidth_efficiency = 0.8,
              .compute_efficiency = 0.6,
              .step_overhead_s = 0.0008,
              .per_sequence_overhead_s = 0.00001,
              .activation_reserve_bytes = 2.5 * kGiB};
    case EngineKind::TensorRtLlm:
      return {.bandwidth_efficiency = 0.8,
              .compute_efficiency = 0.65,
              .step_overhead_s = 0.0005,
              .per_sequence_overhead_s = 0.000005,
              .activation_reserve_bytes = 2.0 * kGiB};
    case EngineKind::Sglang:
      return {.bandwidth_efficiency = 0.8,
              .compute_efficiency = 0.6,
              .step_overhead_s = 0.0006,
              .per_sequence_overhead_s = 0.00001,
              .activation_reserve_bytes = 2.5 * kGiB};
  }
  return {};
}

// Each engine's defaults as its own source sets them (/work/notes → README "Serving engines"):
// - vLLM ≥ 0.9, vllm/engine/arg_utils.py: on a GPU of 70 GiB or more that is not an A100, 1024
//   sequences and 8192 batched tokens for the OpenAI server, else 256 and 2048; chunked prefill
//   always on in V1; 16-token blocks; gpu_memory_utilization 0.9.
// - TensorRT-LLM (trtllm-serve, llm_args.py): max_batch_size 2048, max_num_tokens 8192, chunked
//   context off, the GUARANTEED_NO_EVICT scheduler, 32-token blocks; its KV cache takes 0.9 of
//   the memory left free after the weights (kv_cache_free_gpu_memory_fraction), which
//   gpu_memory_utilization expresses here as a share of the whole.
// - SGLang (server_args.py): chunked_prefill_size 2048 under 35 GiB, 4096 under 60 GiB, else
//   8192; mem_fraction_static about 0.84 on 24–80 GiB GPUs; pages of one token.
EngineLimits resolve(const EngineOptions& options, const GpuHardware& gpu, std::uint32_t gpus) {
  EngineLimits l{.kind = options.kind};
  const double memory = static_cast<double>(gpu.memory_bytes);
  switch (options.kind) {
    case EngineKind::Vllm: {
      const bool large = memory >= 70 * kGiB && gpu.name.find("A100") == std::string::npos;
      l.max_num_seqs = large ? 1024 : 256;
      l.max_num_batched_tokens = large ? 8192 : 2048;
      l.gpu_memory_utilization = 0.9;
      l.chunked_prefill = true;
      break;
    }
    case EngineKind::TensorRtLlm:
      l.max_num_seqs = 2048;
      l.max_num_batched_tokens = 8192;
      l.gpu_memory_utilization = 0.9;
      l.chunked_prefill = false;
      l.reserve_output = true;
      l.block_tokens = 32;
      break;
    case EngineKind::Sglang:
      l.max_num_seqs = 2048;
      l.max_num_batched_tokens = memory < 35 * kGiB ? 2048 : memory < 60 * kGiB ? 4096 : 8192;
      l.gpu_memory_utilization = 0.84;
      l.chunked_prefill = true;
      l.block_tokens = 1;
      break;
  }
  l.tensor_parallel_size = options.tensor_parallel_size.value_or(std::max<std::uint32_t>(1, gpus));
  if (options.max_num_seqs) l.max_num_seqs = *options.max_num_seqs;
  if (options.max_num_batched_tokens) l.max_num_batched_tokens = *options.max_num_batched_tokens;
  if (options.gpu_memory_utilization) l.gpu_memory_utilization = *options.gpu_memory_utilization;
  if (options.enable_chunked_prefill) l.chunked_prefill = *options.enable_chunked_prefill;
  l.calibration = default_calibration(options.kind);
  const EngineCalibration& o = options.calibration_override;
  EngineCalibration& c = l.calibration;
  if (o.bandwidth_efficiency > 0) c.bandwidth_efficiency = o.bandwidth_efficiency;
  if (o.compute_efficiency > 0) c.compute_efficiency = o.compute_efficiency;
  if (o.step_overhead_s > 0) c.step_overhead_s = o.step_overhead_s;
  if (o.per_sequence_overhead_s > 0) c.per_sequence_overhead_s = o.per_sequence_overhead_s;
  if (o.activation_reserve_bytes > 0) c.activation_reserve_bytes = o.activation_reserve_bytes;
  return l;
}

}  // namespace fleetsim
