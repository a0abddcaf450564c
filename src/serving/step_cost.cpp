#include "fleetsim/serving/step_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

// The tensor peak a step computes at. Quantized weights are multiplied in the format the GPU
// has units for: fp8 and int8 on their own units where the GPU has them (W8A8), else dequantized
// to 16 bits (vLLM's weight-only Marlin kernels on Ampere); 4-bit weights always dequantize.
double peak_for(NumberFormat weights, const GpuHardware& gpu) {
  const double sixteen = gpu.bf16_flops > 0 ? gpu.bf16_flops : gpu.fp16_flops;
  switch (weights) {
    case NumberFormat::Fp8:
      return gpu.fp8_flops > 0 ? gpu.fp8_flops : sixteen;
    case NumberFormat::Int8:
      return gpu.int8_ops > 0 ? gpu.int8_ops : sixteen;
    case NumberFormat::Fp16:
      return gpu.fp16_flops > 0 ? gpu.fp16_flops : sixteen;
    case NumberFormat::Fp32:
      return sixteen / 2;  // TF32 runs at half the 16-bit rate
    case NumberFormat::Bf16:
    case NumberFormat::Int4:
      return sixteen;
  }
  return sixteen;
}

bool is_mla(const ModelSpec& m) {
  return m.kv_elements_per_token_layer != 2 * m.kv_heads * m.head_dim;
}

}  // namespace

StepCost::StepCost(const ServedModel& model, const ReplicaHardware& hardware,
                   const EngineLimits& limits)
    : model_(model), hardware_(hardware), limits_(limits) {
  const ModelSpec& m = model.spec;
  tp_ = std::max<double>(1, limits.tensor_parallel_size);
  peak_ops_ = peak_for(model.weights, hardware.gpu);

  // Embeddings and the output projection stay in 16 bits when the body is quantized.
  const double embedding = static_cast<double>(m.vocabulary) * m.hidden_size;
  const double head = m.tied_embeddings ? 0 : embedding;
  const double body = std::max(0.0, m.total_parameters - embedding - head);
  const double weight_bytes = bytes_per_element(model.weights);
  const double edge_bytes = std::max(2.0, std::min(weight_bytes, 4.0));
  weight_bytes_per_gpu_ = (body * weight_bytes + (embedding + head) * edge_bytes) / tp_;

  // A step reads the output projection and the dense body once; of the routed experts, those its
  // tokens pick (weight_read_bytes).
  double routed = 0;
  if (m.is_moe() && m.experts > m.experts_per_token) {
    const double per_expert = (m.total_parameters - m.active_parameters) /
                              static_cast<double>(m.experts - m.experts_per_token);
    routed = per_expert * m.experts;
    expert_bytes_ = per_expert * weight_bytes / tp_;
  }
  dense_read_bytes_ = ((body - routed) * weight_bytes + embedding * edge_bytes) / tp_;
  flops_per_token_ = 2 * m.active_parameters / tp_;
  attention_flops_ = 4.0 * m.attention_heads * m.head_dim * m.layers / tp_;

  // GQA shards the KV heads over the TP ranks (each keeps at least one); MLA's latent is
  // replicated on every rank.
  const double kv_elements = is_mla(m) ? m.kv_elements_per_token_layer
                                       : 2.0 * std::max(1.0, m.kv_heads / tp_) * m.head_dim;
  kv_bytes_per_token_ = m.layers * kv_elements * bytes_per_element(model.kv_cache);
  seconds_per_byte_ = 1 / (hardware.gpu.memory_bandwidth * limits.calibration.bandwidth_efficiency);
  seconds_per_op_ = 1 / (peak_ops_ * limits.calibration.compute_efficiency);
  step_overhead_s_ = limits.calibration.step_overhead_s;
  per_sequence_overhead_s_ = limits.calibration.per_sequence_overhead_s;
  // Megatron-style TP: two all-reduces of the 16-bit activations per layer, as a ring: each GPU
  // sends and receives 2 (tp − 1) ÷ tp of the buffer.
  const Interconnect& link = hardware.link;
  allreduce_fixed_s_ = 2.0 * m.layers * link.latency_s;
  allreduce_per_token_s_ = link.bandwidth > 0 ? 2.0 * m.layers * 2 * (tp_ - 1) / tp_ *
                                                    m.hidden_size * 2.0 / link.bandwidth
                                              : 0;

  const double memory = static_cast<double>(hardware.gpu.memory_bytes);
  const double held = weight_bytes_per_gpu_ + limits.calibration.activation_reserve_bytes;
  const double room = limits.kv_share_of_free ? (memory - held) * limits.gpu_memory_utilization
                                              : memory * limits.gpu_memory_utilization - held;
  const double blocks = std::floor(room / (kv_bytes_per_token_ * limits.block_tokens));
  kv_capacity_tokens_ = room > 0 ? static_cast<std::int64_t>(blocks) * limits.block_tokens : 0;
}

double StepCost::weight_read_bytes(double tokens) const {
  if (tokens <= 0) return dense_read_bytes_;
  // Each token picks k of E experts per layer: E × (1 − (1 − k/E)^T) distinct ones are read.
  const double e = model_.spec.experts;
  const double picked = e * (1 - std::pow(1 - model_.spec.experts_per_token / e, tokens));
  return dense_read_bytes_ + picked * expert_bytes_;
}

std::string StepCost::why_not() const {
  if (kv_capacity_tokens_ >= limits_.block_tokens) return {};
  return fmt::format(
      "{} in {} needs {:.1f} GiB of weights per GPU at tensor parallelism {} and {:.1f} GiB for "
      "activations and buffers; a {} has {:.1f} GiB, of which gpu_memory_utilization {} leaves "
      "no room for a KV cache",
      model_.spec.name, to_string(model_.weights), weight_bytes_per_gpu_ / kGib,
      limits_.tensor_parallel_size, limits_.calibration.activation_reserve_bytes / kGib,
      hardware_.gpu.name, static_cast<double>(hardware_.gpu.memory_bytes) / kGib,
      limits_.gpu_memory_utilization);
}

}  // namespace fleetsim
