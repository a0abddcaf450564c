// The time of one engine step on one replica, from first principles: a roofline of the bytes the
// step reads and the operations it does, plus tensor-parallel all-reduces and the engine's own
// overheads. And what the replica holds: weights per GPU and the KV cache the rest leaves.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "fleetsim/serving/engine_config.hpp"
#include "fleetsim/serving/gpu_hardware.hpp"
#include "fleetsim/serving/model_spec.hpp"
#include "fleetsim/serving/number_format.hpp"

namespace fleetsim {

struct ServedModel {
  ModelSpec spec;
  NumberFormat weights = NumberFormat::Bf16;
  NumberFormat kv_cache = NumberFormat::Bf16;
};

// The hardware one replica runs on: `gpus` GPUs of one kind and the link between them.
struct ReplicaHardware {
  GpuHardware gpu;
  Interconnect link;
};

// What one step does: `decodes` sequences each producing one token while reading
// `decode_context` cached tokens in all, and `prefill_tokens` prompt tokens whose attention
// spans `prefill_context` token pairs in all (Σ over the chunk's tokens of their position).
struct StepWork {
  double decodes = 0;
  double decode_context = 0;
  double prefill_tokens = 0;
  double prefill_context = 0;
};

class StepCost {
 public:
  // Checks nothing: fits() and the scenario's checks say whether the model can run here.
  StepCost(const ServedModel& model, const ReplicaHardware& hardware, const EngineLimits& limits);

  // Seconds one step of this work takes. Inline: every plan of every replica's engine asks.
  double seconds(const StepWork& work) const {
    return std::max(memory_seconds(work), compute_seconds(work)) + allreduce_seconds(work) +
           step_overhead_s_ + per_sequence_overhead_s_ * work.decodes;
  }
  // Its parts: the time to read what it reads at the achieved bandwidth, and to compute what it
  // computes at the achieved peak (a step takes the larger), and the all-reduces of TP > 1.
  double memory_seconds(const StepWork& w) const {
    const double weights =
        expert_bytes_ == 0 ? dense_read_bytes_ : weight_read_bytes(w.decodes + w.prefill_tokens);
    return (weights + kv_bytes_per_token_ * w.decode_context) * seconds_per_byte_;
  }
  double compute_seconds(const StepWork& w) const {
    const double ops = flops_per_token_ * (w.decodes + w.prefill_tokens) +
                       attention_flops_ * (w.decode_context + w.prefill_context);
    return ops * seconds_per_op_;
  }
  double allreduce_seconds(const StepWork& w) const {
    return tp_ <= 1 ? 0
                    : allreduce_fixed_s_ + allreduce_per_token_s_ * (w.decodes + w.prefill_tokens);
  }

  // Memory per GPU.
  double weight_bytes_per_gpu() const { return weight_bytes_per_gpu_; }
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token_; }
  // Tokens the KV cache holds (whole blocks); ≤ 0 when the weights leave no room.
  std::int64_t kv_capacity_tokens() const { return kv_capacity_tokens_; }
  // Whether the engine takes a request of these lengths (an output counts at least one token):
  // vLLM refuses one longer than max_model_len, which it keeps within the KV cache.
  bool accepts(std::uint32_t prompt, std::uint32_t output) const {
    const std::int64_t tokens = std::int64_t{prompt} + std::max<std::uint32_t>(1, output);
    return tokens <= kv_capacity_tokens_ &&
           (limits_.max_model_len == 0 || tokens <= limits_.max_model_len);
  }
  // Why the model cannot run here (empty when it can): weights too large, no KV room.
  std::string why_not() const;

  const EngineLimits& limits() const { return limits_; }
  const ServedModel& model() const { return model_; }
  const ReplicaHardware& hardware() const { return hardware_; }
  double peak_ops() const { return peak_ops_; }

 private:
  double weight_read_bytes(double tokens) const;

  ServedModel model_;
  ReplicaHardware hardware_;
  EngineLimits limits_;
  double tp_ = 1;
  double peak_ops_ = 0;  // the tensor peak the weights' format computes at
  double weight_bytes_per_gpu_ = 0;
  double dense_read_bytes_ = 0;  // per GPU, read by every step: all but the routed experts
  double expert_bytes_ = 0;      // per GPU, one routed expert of one layer, × layers
  double flops_per_token_ = 0;   // per GPU: 2 × active parameters ÷ TP
  double attention_flops_ = 0;   // per GPU per (query, key) pair: 4 × heads × head_dim × layers
  double kv_bytes_per_token_ = 0;  // per GPU
  std::int64_t kv_capacity_tokens_ = 0;
  double seconds_per_byte_ = 0;       // at the achieved bandwidth
  double seconds_per_op_ = 0;         // at the achieved peak
  double allreduce_fixed_s_ = 0;      // per step, the links' latency
  double allreduce_per_token_s_ = 0;  // per token in the step
  double step_overhead_s_ = 0;        // the calibration's, beside the rest
  double per_sequence_overhead_s_ = 0;
};

}  // namespace fleetsim
