#include "fleetsim/service/replica_engine.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

// AWS Neuron documents one Inferentia2 or Trainium chip as 32 GiB of HBM at 820 GB/s and 190
// TFLOPS of bf16 (../shared/data/gpu_hardware.csv). Their engine (Neuron's vLLM backend, NxD
// Inference) is not modelled: these chips run the GPU engine model on these nominal figures.
std::optional<GpuHardware> nominal_neuron_chip(const InstanceType& type) {
  const std::string& name = type.accelerator_name;
  if (name != "inferentia2" && name != "trainium" && name != "trainium2") return std::nullopt;
  return GpuHardware{.name = name,
                     .memory_bytes = 32LL << 30,
                     .memory_bandwidth = 820e9,
                     .bf16_flops = 190e12,
                     .fp16_flops = 190e12,
                     .int8_ops = 380e12};
}

bool has_bf16(const GpuHardware& gpu) { return gpu.bf16_flops > 0; }

}  // namespace

ServedModel served_model(const ServiceModel& model, const GpuHardware& gpu) {
  const NumberFormat sixteen = has_bf16(gpu) ? NumberFormat::Bf16 : NumberFormat::Fp16;
  const NumberFormat weights = model.weights.value_or(sixteen);
  return {.spec = model.spec, .weights = weights, .kv_cache = model.kv_cache.value_or(sixteen)};
}

ReplicaEngine replica_engine(const ServiceConfig& service, const InstanceType& type,
                             std::uint32_t gpus, const GpuShare& share) {
  ReplicaEngine out;
  std::optional<GpuHardware> gpu = type.gpu_hardware;
  if (!gpu) gpu = nominal_neuron_chip(type);
  if (gpu && !share.whole()) gpu = shared_gpu(*gpu, share);
  if (!gpu) {
    out.why_not =
        fmt::format("the catalog has no hardware figures for its {}",
                    type.has_gpu() ? (type.gpu_count > 0 ? type.gpu_name : type.accelerator_name)
                                   : "CPUs (no accelerator)");
    return out;
  }
  const ServiceModel& model = *service.model;
  const ServedModel served = served_model(model, *gpu);
  // vLLM's checks at start-up (vllm/config and the quantization methods' capabilities).
  if (!has_bf16(*gpu)) {
    if (served.weights == NumberFormat::Bf16 || served.kv_cache == NumberFormat::Bf16)
      out.why_not =
          fmt::format("{} has no bf16 (compute capability 7.5; vLLM needs 8.0)", gpu->name);
    else if (served.weights == NumberFormat::Fp8 || served.kv_cache == NumberFormat::Fp8)
      out.why_not = fmt::format(
          "vLLM refuses fp8 on {}: \"Minimum capability: 80. Current capability: 75\"", gpu->name);
    if (!out.why_not.empty()) return out;
  }
  if (served.weights == NumberFormat::Fp8 && gpu->fp8_flops == 0)
    out.note = fmt::format(
        "{} has no fp8 units: vLLM runs fp8 weights weight-only (W8A16, the "
        "FP8-Marlin kernel), at its 16-bit compute rate",
        gpu->name);
  const std::uint32_t tp = service.engine.tensor_parallel_size.value_or(gpus);
  ReplicaHardware hardware{.gpu = *gpu, .link = type.gpu_interconnect};
  EngineLimits limits = resolve(service.engine, *gpu, tp);
  // vLLM's max_model_len defaults to the model's context length; for a model fleetsim assumed,
  // to what the KV cache holds, since the user chose no model to hold to its context.
  if (!service.engine.max_model_len)
    limits.max_model_len = model.assumed ? 0 : model.spec.max_context;
  out.cost.emplace(served, hardware, limits);
  const StepCost& cost = *out.cost;
  if (std::string why = cost.why_not(); !why.empty()) {
    out.why_not = why;
    out.cost.reset();
    return out;
  }
  const std::int64_t kv = cost.kv_capacity_tokens();
  if (limits.max_model_len > kv) {
    // vLLM refuses to start (check_enough_kv_cache_memory).
    out.why_not = fmt::format(
        "its KV cache holds {} tokens, less than max_model_len {} ({:.2f} GiB of KV cache would "
        "be needed, {:.2f} GiB is available); vLLM refuses to start: lower "
        "engine.max_model_len or raise engine.gpu_memory_utilization",
        kv, limits.max_model_len, limits.max_model_len * cost.kv_bytes_per_token_per_gpu() / kGib,
        static_cast<double>(kv) * cost.kv_bytes_per_token_per_gpu() / kGib);
    out.cost.reset();
  }
  return out;
}

}  // namespace fleetsim
