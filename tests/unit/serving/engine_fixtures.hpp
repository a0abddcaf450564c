// Models and GPUs for the engine tests, from their config.json and datasheets (kept here so the
// tests do not depend on the bundled catalogs).
#pragma once

#include <optional>
#include <string_view>

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

// meta-llama/Llama-2-7b-hf config.json: multi-head attention (32 KV heads), 4K context.
inline ModelSpec llama2_7b() {
  return {.name = "llama-2-7b",
          .total_parameters = 6.74e9,
          .active_parameters = 6.74e9,
          .layers = 32,
          .hidden_size = 4096,
          .attention_heads = 32,
          .kv_heads = 32,
          .head_dim = 128,
          .vocabulary = 32000,
          .max_context = 4096,
          .kv_elements_per_token_layer = 2 * 32 * 128};
}

// meta-llama/Llama-2-70b-hf config.json: GQA with 8 KV heads.
inline ModelSpec llama2_70b() {
  return {.name = "llama-2-70b",
          .total_parameters = 68.98e9,
          .active_parameters = 68.98e9,
          .layers = 80,
          .hidden_size = 8192,
          .attention_heads = 64,
          .kv_heads = 8,
          .head_dim = 128,
          .vocabulary = 32000,
          .max_context = 4096,
          .kv_elements_per_token_layer = 2 * 8 * 128};
}

// mistralai/Mistral-7B-Instruct-v0.3 config.json.
inline ModelSpec mistral_7b() {
  return {.name = "mistral-7b",
          .total_parameters = 7.25e9,
          .active_parameters = 7.25e9,
          .layers = 32,
          .hidden_size = 4096,
          .attention_heads = 32,
          .kv_heads = 8,
          .head_dim = 128,
          .vocabulary = 32768,
          .max_context = 32768,
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

// NVIDIA H200 SXM: the H100's compute with HBM3e; 143,771 MiB as nvidia-smi shows it.
inline GpuHardware h200() {
  return {.name = "H200",
          .memory_bytes = 143771LL << 20,
          .memory_bandwidth = 4.8e12,
          .bf16_flops = 989e12,
          .fp16_flops = 989e12,
          .fp8_flops = 1979e12,
          .int8_ops = 1979e12};
}

// NVIDIA A100 SXM4 80GB datasheet: no fp8 units.
inline GpuHardware a100_80gb() {
  return {.name = "A100-80GB",
          .memory_bytes = 81920LL << 20,
          .memory_bandwidth = 2039e9,
          .bf16_flops = 312e12,
          .fp16_flops = 312e12,
          .int8_ops = 624e12};
}

// NVIDIA L40S datasheet (dense peaks); 46,068 MiB as nvidia-smi shows it.
inline GpuHardware l40s() {
  return {.name = "L40S",
          .memory_bytes = 46068LL << 20,
          .memory_bandwidth = 864e9,
          .bf16_flops = 362e12,
          .fp16_flops = 362e12,
          .fp8_flops = 733e12,
          .int8_ops = 733e12};
}

// NVLink4 through NVSwitch (p5, p5e): 900 GB/s both ways per GPU.
inline Interconnect nvswitch() {
  return {.kind = InterconnectKind::NvSwitch, .bandwidth = 450e9, .latency_s = 10e-6};
}

// NVLink3 through NVSwitch (p4d, p4de): 600 GB/s both ways per GPU.
inline Interconnect nvswitch_a100() {
  return {.kind = InterconnectKind::NvSwitch, .bandwidth = 300e9, .latency_s = 10e-6};
}

// PCIe Gen4 x16 between GPUs without NVLink (g6e): about 25 GB/s a direction achievable, and
// NCCL's small all-reduce over PCIe takes tens of microseconds.
inline Interconnect pcie_gen4() {
  return {.kind = InterconnectKind::Pcie, .bandwidth = 25e9, .latency_s = 25e-6};
}

// By the names the calibration rows use.
inline std::optional<ModelSpec> model_named(std::string_view name) {
  for (ModelSpec m :
       {llama_8b(), llama_70b(), mixtral_8x7b(), llama2_7b(), llama2_70b(), mistral_7b()})
    if (m.name == name) return m;
  return std::nullopt;
}

inline std::optional<GpuHardware> gpu_named(std::string_view name) {
  for (GpuHardware g : {h100(), h200(), a100_80gb(), l40s(), a10g()})
    if (g.name == name) return g;
  return std::nullopt;
}

// The link between the GPUs of the instance each GPU comes in.
inline Interconnect link_for(const GpuHardware& gpu) {
  if (gpu.name == "A100-80GB") return nvswitch_a100();
  if (gpu.name == "H100" || gpu.name == "H200") return nvswitch();
  return pcie_gen4();
}

inline StepCost step_cost(const ModelSpec& model, const GpuHardware& gpu, std::uint32_t tp = 1,
                          EngineOptions options = {}, NumberFormat weights = NumberFormat::Bf16) {
  options.tensor_parallel_size = tp;
  return StepCost(ServedModel{.spec = model, .weights = weights, .kv_cache = NumberFormat::Bf16},
                  ReplicaHardware{.gpu = gpu, .link = tp > 1 ? nvswitch() : Interconnect{}},
                  resolve(options, gpu, tp));
}

}  // namespace fleetsim::test
