// Models and GPUs for the engine tests, from their config.json and datasheets (kept here so the
// tests do not depend on the bundled catalogs).
#pragma once

#include "fleetsim/serving/engine_config.hpp"
#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim::test {

// meta-llama/Llama-3.1-8B config.json.
inline ModelSpec llama_8b() {
  return {.name = "llama-3.1-8b",
          .total_parameters = 8.03e9,
          .active_parameters = 8.03e9,
          .layers = 32,
          .hidden_size = 4096,
          .attention_heads = 32,
          .kv_heads = 8,
          .head_dim = 128,
          .vocabulary = 128256,
          .max_context = 131072,
          .kv_elements_per_token_layer = 2 * 8 * 128};
}

// meta-llama/Llama-3.1-70B config.json.
inline ModelSpec llama_70b() {
  return {.name = "llama-3.1-70b",
          .total_parameters = 70.55e9,
          .active_parameters = 70.55e9,
          .layers = 80,
          .hidden_size = 8192,
          .attention_heads = 64,
          .kv_heads = 8,
          .head_dim = 128,
          .vocabulary = 128256,
          .max_context = 131072,
          .kv_elements_per_token_layer = 2 * 8 * 128};
}

// mistralai/Mixtral-8x7B-v0.1 config.json: 46.7B parameters, 12.9B active.
inline ModelSpec mixtral_8x7b() {
  return {.name = "mixtral-8x7b",
          .total_parameters = 46.7e9,
          .active_parameters = 12.9e9,
          .layers = 32,
          .hidden_size = 4096,
          .attention_heads = 32,
          .kv_heads = 8,
          .head_dim = 128,
          .vocabulary = 32000,
          .max_context = 32768,
          .experts = 8,
          .experts_per_token = 2,
          .kv_elements_per_token_layer = 2 * 8 * 128};
}

// NVIDIA H100 SXM datasheet; 81,559 MiB as nvidia-smi shows it.
inline GpuHardware h100() {
  return {.name = "H100",
          .memory_bytes = 81559LL << 20,
          .memory_bandwidth = 3.35e12,
          .bf16_flops = 989e12,
          .fp16_flops = 989e12,
          .fp8_flops = 1979e12,
          .int8_ops = 1979e12};
}

inline GpuHardware a10g() {
  return {.name = "A10G",
          .memory_bytes = 23028LL << 20,
          .memory_bandwidth = 600e9,
          .bf16_flops = 70e12,
          .fp16_flops = 70e12,
          .int8_ops = 140e12};
}

inline Interconnect nvswitch() {
  return {.kind = InterconnectKind::NvSwitch, .bandwidth = 450e9, .latency_s = 10e-6};
}

inline StepCost step_cost(const ModelSpec& model, const GpuHardware& gpu, std::uint32_t tp = 1,
                          EngineOptions options = {}, NumberFormat weights = NumberFormat::Bf16) {
  options.tensor_parallel_size = tp;
  return StepCost(ServedModel{.spec = model, .weights = weights, .kv_cache = NumberFormat::Bf16},
                  ReplicaHardware{.gpu = gpu, .link = tp > 1 ? nvswitch() : Interconnect{}},
                  resolve(options, gpu, tp));
}

}  // namespace fleetsim::test
