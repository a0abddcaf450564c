// A share of one GPU as a replica's engine sees it: a MIG slice (its memory slices of 8 for
// memory and bandwidth, its compute slices of 7 for the tensor cores), an MPS client (a fixed
// 1/replicas of everything), or a time-sliced replica (the whole GPU, but busy replicas take
// turns).
#pragma once

#include "fleetsim/serving/gpu_hardware.hpp"

namespace fleetsim {

struct GpuShare {
  double memory = 1.0;
  double bandwidth = 1.0;
  double compute = 1.0;
  bool whole() const { return memory == 1.0 && bandwidth == 1.0 && compute == 1.0; }
  friend bool operator==(const GpuShare&, const GpuShare&) = default;
};

// NVIDIA's MIG user guide: a GPU has 8 memory slices (each 1/8 of memory and its bandwidth) and 7
// compute slices. The SMs MIG itself takes (A100: 98 of 108 in 7g) are not subtracted: the
// catalog's peaks are the whole GPU's and no table here gives SMs per profile.
GpuShare mig_share(int compute_slices, int memory_slices);

// MPS as the device plugin configures it: each of `replicas` clients is pinned to 1/replicas of
// the memory (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT) and of the SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).
GpuShare mps_share(int replicas);

// Time-slicing: each of `busy` replicas with work at once advances at this fraction of its
// speed alone: 1/busy, less the context switches between their slices. No source measures the
// switch for LLM inference; fleetsim assumes kTimeSliceSwitchCost of every slice.
inline constexpr double kTimeSliceSwitchCost = 0.05;
double time_sliced_speed(int busy);

// The GPU the engine sees on its share.
GpuHardware shared_gpu(const GpuHardware& gpu, const GpuShare& share);

}  // namespace fleetsim
