// A replica's share of a GPU (issue 26 part 3): a MIG slice's memory and bandwidth are its memory
// slices of 8 and its compute its compute slices of 7 (NVIDIA's MIG user guide); an MPS client
// gets 1/replicas (the device plugin's pinned memory and active thread percentage); time-sliced
// replicas busy at once each advance at 1/k less the assumed context-switch cost.
#include "fleetsim/serving/gpu_share.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

namespace {

// The catalog's A100-80GB (gpu-hardware.csv): 80 GiB, 2,039 GB/s, 312 dense bf16 TFLOPS.
GpuHardware a100_80() {
  return GpuHardware{.name = "a100",
                     .memory_bytes = 81920LL << 20,
                     .memory_bandwidth = 2039e9,
                     .bf16_flops = 312e12,
                     .fp16_flops = 312e12,
                     .int8_ops = 624e12};
}

}  // namespace

TEST_CASE(
    "a 3g.40gb slice of an A100-80GB has half its memory and bandwidth and 3/7 of its "
    "compute",
    "[serving]") {
  const GpuShare s = mig_share(3, 4);  // 3g.40gb: 3 compute slices, 4 memory slices
  CHECK(s.memory == 0.5);
  CHECK(s.bandwidth == 0.5);
  CHECK(s.compute == 3.0 / 7.0);
  const GpuHardware g = shared_gpu(a100_80(), s);
  CHECK(g.memory_bytes == 40960LL << 20);
  CHECK(g.memory_bandwidth == 1019.5e9);
  CHECK(g.bf16_flops == Approx(312e12 * 3 / 7).epsilon(1e-15));
  CHECK(g.int8_ops == Approx(624e12 * 3 / 7).epsilon(1e-15));
  CHECK(g.fp8_flops == 0);
  // 1g.10gb on the A100-80GB: one slice of each.
  const GpuHardware one = shared_gpu(a100_80(), mig_share(1, 1));
  CHECK(one.memory_bytes == 10240LL << 20);
  CHECK(one.bf16_flops == Approx(312e12 / 7).epsilon(1e-15));
  // 7g.80gb is the whole GPU: all 8 memory slices and 7 compute slices.
  CHECK(mig_share(7, 8).whole());
}

TEST_CASE("an MPS client of 4 gets a quarter of everything", "[serving]") {
  const GpuShare s = mps_share(4);
  CHECK(s == GpuShare{.memory = 0.25, .bandwidth = 0.25, .compute = 0.25});
  CHECK(shared_gpu(a100_80(), s).memory_bytes == 20480LL << 20);
}

TEST_CASE("time-sliced replicas busy at once each advance at 1/k less the switch cost",
          "[serving]") {
  CHECK(time_sliced_speed(0) == 1.0);
  CHECK(time_sliced_speed(1) == 1.0);  // alone on the GPU: no switching
  CHECK(time_sliced_speed(2) == Approx(0.475).epsilon(1e-15));
  CHECK(time_sliced_speed(4) == Approx(0.2375).epsilon(1e-15));
}
