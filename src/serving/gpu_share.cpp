#include "fleetsim/serving/gpu_share.hpp"

#include <cmath>

namespace fleetsim {

GpuShare mig_share(int compute_slices, int memory_slices) {
  const double memory = memory_slices / 8.0;
  return {.memory = memory, .bandwidth = memory, .compute = compute_slices / 7.0};
}

GpuShare mps_share(int replicas) {
  const double f = 1.0 / replicas;
  return {.memory = f, .bandwidth = f, .compute = f};
}

double time_sliced_speed(int busy) {
  if (busy <= 1) return 1.0;
  return (1.0 - kTimeSliceSwitchCost) / busy;
}

GpuHardware shared_gpu(const GpuHardware& gpu, const GpuShare& share) {
  GpuHardware out = gpu;
  out.memory_bytes =
      static_cast<std::int64_t>(std::floor(static_cast<double>(gpu.memory_bytes) * share.memory));
  out.memory_bandwidth = gpu.memory_bandwidth * share.bandwidth;
  out.bf16_flops = gpu.bf16_flops * share.compute;
  out.fp16_flops = gpu.fp16_flops * share.compute;
  out.fp8_flops = gpu.fp8_flops * share.compute;
  out.int8_ops = gpu.int8_ops * share.compute;
  return out;
}

}  // namespace fleetsim
