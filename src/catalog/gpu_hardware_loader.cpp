#include "fleetsim/catalog/gpu_hardware_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "fleetsim/catalog/instance_labels.hpp"
#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

// Far above any GPU (B300: 288 GB, 8 TB/s, a few PFLOPS; NVLink 5: 900 GB/s a direction), low
// enough that a unit slip (bytes for GiB, TFLOPS for FLOPS) is caught.
constexpr std::int64_t kMaxGpuMemoryMib = 1LL << 24;  // 16 TiB
constexpr double kMaxBandwidthGbS = 1e5;
constexpr double kMaxTeraOps = 1e5;
constexpr double kMaxLatencyUs = 1e6;
constexpr std::uintmax_t kMaxTableBytes = 16ULL << 20;

constexpr double kMicro = 1e-6;

CsvReader open_table(const std::filesystem::path& path, std::string_view noun,
                     std::string_view example_header) {
  return CsvReader(path, CsvOptions{.noun = noun,
                                    .example_header = example_header,
                                    .input = CsvInput::Catalog,
                                    .skip_blank_lines = true,
                                    .max_file_bytes = kMaxTableBytes});
}

// A number in [0, max]; with `positive`, 0 is refused too (a GPU without memory or bandwidth).
double bounded(const CsvReader& t, std::size_t col, double max, bool positive) {
  const double v = t.number(col);
  if (v < 0) t.fail(col, fmt::format("must not be negative (got {})", t.field(col)));
  if (positive && v == 0) t.fail(col, "must be greater than 0");
  if (v > max) t.fail(col, fmt::format("{} is too large (at most {})", t.field(col), max));
  return v;
}

using GpuKey = std::pair<std::string, std::int64_t>;  // (gpu_name, gpu_memory_mib)

std::map<GpuKey, GpuHardware> read_hardware(const std::filesystem::path& path) {
  CsvReader t = open_table(path, "GPU hardware table",
                           "gpu_name,gpu_memory_mib,usable_memory_mib,memory_bandwidth_gb_s,"
                           "bf16_tflops,fp16_tflops,fp8_tflops,int8_tops,source");
  const std::size_t name = t.require("gpu_name");
  const std::size_t memory = t.require("gpu_memory_mib");
  const std::size_t usable = t.require("usable_memory_mib");
  const std::size_t bandwidth = t.require("memory_bandwidth_gb_s");
  const std::size_t bf16 = t.require("bf16_tflops");
  const std::size_t fp16 = t.require("fp16_tflops");
  const std::size_t fp8 = t.require("fp8_tflops");
  const std::size_t int8 = t.require("int8_tops");
  std::map<GpuKey, GpuHardware> out;
  std::map<GpuKey, int> lines;
  while (t.next_row()) {
    GpuHardware hw;
    hw.name = lower_kebab_case(t.field(name));
    if (hw.name.empty()) t.fail(name, "is empty");
    const std::int64_t memory_mib = t.integer(memory, 1, kMaxGpuMemoryMib);
    hw.memory_bytes = t.integer(usable, 1, kMaxGpuMemoryMib) * kMib;
    hw.memory_bandwidth = bounded(t, bandwidth, kMaxBandwidthGbS, true) * kGiga;
    hw.bf16_flops = bounded(t, bf16, kMaxTeraOps, false) * kTera;
    hw.fp16_flops = bounded(t, fp16, kMaxTeraOps, false) * kTera;
    hw.fp8_flops = bounded(t, fp8, kMaxTeraOps, false) * kTera;
    hw.int8_ops = bounded(t, int8, kMaxTeraOps, false) * kTera;
    if (hw.bf16_flops == 0 && hw.fp16_flops == 0)
      t.fail(fp16,
             "and bf16_tflops are both 0: a GPU the serving model can use has a 16-bit "
             "tensor peak");
    GpuKey key{hw.name, memory_mib};
    if (auto [it, fresh] = lines.emplace(key, t.line()); !fresh)
      t.fail(name, fmt::format("duplicate GPU {} with {} MiB (first on line {})", hw.name,
                               memory_mib, it->second));
    out.emplace(std::move(key), std::move(hw));
  }
  return out;
}

void read_interconnects(const std::filesystem::path& path, std::vector<InstanceType>& types) {
  CsvReader t = open_table(path, "GPU interconnect table",
                           "instance_type,kind,bandwidth_gb_s,latency_us,source");
  const std::size_t type = t.require("instance_type");
  const std::size_t kind = t.require("kind");
  const std::size_t bandwidth = t.require("bandwidth_gb_s");
  const std::size_t latency = t.require("latency_us");
  std::map<std::string, std::size_t, std::less<>> by_name;
  for (std::size_t i = 0; i < types.size(); ++i) by_name.emplace(types[i].name, i);
  std::map<std::string, int, std::less<>> lines;
  while (t.next_row()) {
    const std::string_view name = t.field(type);
    const auto found = by_name.find(name);
    if (found == by_name.end())
      t.fail(type, fmt::format("unknown instance type \"{}\" (not in instance-types.csv)",
                               name.substr(0, 60)));
    InstanceType& it = types[found->second];
    if (it.gpu_count < 2)
      t.fail(type, fmt::format("{} has {} GPU{}: an interconnect needs at least two", it.name,
                               it.gpu_count, it.gpu_count == 1 ? "" : "s"));
    Interconnect link;
    const std::string_view k = t.field(kind);
    if (k == "pcie") {
      link.kind = InterconnectKind::Pcie;
    } else if (k == "nvswitch") {
      link.kind = InterconnectKind::NvSwitch;
    } else {
      t.fail(kind, fmt::format("\"{}\" is not an interconnect kind; expected pcie or nvswitch",
                               k.substr(0, 40)));
    }
    link.bandwidth = bounded(t, bandwidth, kMaxBandwidthGbS, true) * kGiga;
    link.latency_s = bounded(t, latency, kMaxLatencyUs, false) * kMicro;
    if (auto [seen, fresh] = lines.emplace(it.name, t.line()); !fresh)
      t.fail(type, fmt::format("duplicate instance type \"{}\" (first on line {})", it.name,
                               seen->second));
    it.gpu_interconnect = link;
  }
}

}  // namespace

void load_gpu_hardware(const std::filesystem::path& dir, std::vector<InstanceType>& types) {
  std::error_code ec;
  if (std::filesystem::exists(dir / kGpuHardwareFile, ec)) {
    const std::map<GpuKey, GpuHardware> hardware = read_hardware(dir / kGpuHardwareFile);
    for (InstanceType& it : types) {
      if (it.gpu_name.empty()) continue;
      if (auto found = hardware.find(GpuKey{it.gpu_name, it.gpu_memory_mib});
          found != hardware.end())
        it.gpu_hardware = found->second;
    }
  }
  if (std::filesystem::exists(dir / kGpuInterconnectFile, ec))
    read_interconnects(dir / kGpuInterconnectFile, types);
}

}  // namespace fleetsim
