// How a serving engine batches (its options, as users set them) and how fast it runs on the
// hardware (the achieved fractions and overheads fitted on published measurements).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "fleetsim/serving/gpu_hardware.hpp"

namespace fleetsim {

enum class EngineKind : std::uint8_t { Vllm, TensorRtLlm, Sglang };

std::string_view to_string(EngineKind kind);
std::optional<EngineKind> parse_engine_kind(std::string_view name);

// The physics constants of one engine: what share of the datasheet peaks it achieves and what
// it spends beside the GPU's work. Defaults per engine are in engine_config.cpp with the
// measurements they were fitted on; `services[].engine.calibration` overrides them.
struct EngineCalibration {
  double bandwidth_efficiency = 0;     // achieved share of memory bandwidth when reading weights/KV
  double compute_efficiency = 0;       // achieved share of the dense tensor peak
  double step_overhead_s = 0;          // per engine step: scheduling, launch, sampling, output
  double per_sequence_overhead_s = 0;  // per sequence in the step (sampling, detokenizing)
  double activation_reserve_bytes = 0;  // per GPU, beside weights and KV: activations, CUDA
                                        // graphs, the CUDA context and the NCCL buffers
};

// The engine's options as the scenario gives them; nullopt: the engine's own default, which may
// depend on the GPU (resolve()).
struct EngineOptions {
  EngineKind kind = EngineKind::Vllm;
  std::optional<std::uint32_t> max_num_seqs;
  std::optional<std::uint32_t> max_num_batched_tokens;
  std::optional<double> gpu_memory_utilization;
  std::optional<std::uint32_t> tensor_parallel_size;  // nullopt: the pod's GPU request
  std::optional<bool> enable_chunked_prefill;
  std::optional<std::uint32_t> max_model_len;  // nullopt: the model's context length
  EngineCalibration calibration_override{};    // fields > 0 replace the engine's defaults
};

// The options with every default filled in for one replica's hardware.
struct EngineLimits {
  EngineKind kind = EngineKind::Vllm;
  std::uint32_t max_num_seqs = 0;
  std::uint32_t max_num_batched_tokens = 0;
  double gpu_memory_utilization = 0;
  std::uint32_t tensor_parallel_size = 1;
  bool chunked_prefill = true;
  // A step carries decodes and prompt chunks together (vLLM V1). Otherwise prompt steps go first
  // and decodes run in steps of their own: SGLang's default (enable_mixed_chunk off) and, as
  // fleetsim models them, vLLM V0 and TensorRT-LLM without chunked prefill.
  bool mixed_steps = true;
  // The longest sequence (prompt and output) it accepts; 0: no limit but the KV cache.
  std::uint32_t max_model_len = 0;
  // TensorRT-LLM's default GUARANTEED_NO_EVICT scheduler admits a request only when the KV cache
  // holds its prompt and all its output; vLLM and SGLang admit on the prompt and preempt later.
  bool reserve_output = false;
  // TensorRT-LLM's KV cache takes gpu_memory_utilization of the memory left free after the
  // weights and buffers (kv_cache_free_gpu_memory_fraction); vLLM's and SGLang's, that share of
  // the whole GPU less the weights and buffers.
  bool kv_share_of_free = false;
  std::uint32_t block_tokens = 16;  // KV cache block (page) size
  EngineCalibration calibration;
};

EngineCalibration default_calibration(EngineKind kind);
// The engine's defaults for this GPU (some depend on its memory) and TP degree `gpus`, under
// the options given.
EngineLimits resolve(const EngineOptions& options, const GpuHardware& gpu, std::uint32_t gpus);

}  // namespace fleetsim
