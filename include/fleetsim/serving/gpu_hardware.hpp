// What a GPU and its links can do, as datasheets state it: plain data read from the instance
// catalog (instance-catalog/aws/<region>/gpu-hardware.csv) and used by the serving model.
#pragma once

#include <cstdint>
#include <string>

namespace fleetsim {

// Datasheets' decimal units: GB/s, TFLOPS.
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;

struct GpuHardware {
  std::string name;               // the catalog's GPU name: "h100", "a10g"
  std::int64_t memory_bytes = 0;  // usable memory (nvidia-smi's total)
  double memory_bandwidth = 0;    // bytes/s, datasheet peak
  // Dense tensor-core peaks in operations per second; 0 where the GPU has no such unit (T4: no
  // bf16; Ampere and older: no fp8).
  double bf16_flops = 0;
  double fp16_flops = 0;
  double fp8_flops = 0;
  double int8_ops = 0;
};

enum class InterconnectKind : std::uint8_t { None, Pcie, NvSwitch };

// How the GPUs of one instance talk to each other, for tensor-parallel all-reduces.
struct Interconnect {
  InterconnectKind kind = InterconnectKind::None;  // None: one GPU, nothing to reduce
  double bandwidth = 0;                            // bytes/s per GPU per direction, achievable
  double latency_s = 0;                            // per collective, the fixed part
};

}  // namespace fleetsim
