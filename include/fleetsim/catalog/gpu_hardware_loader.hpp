// Reads a catalog directory's GPU tables (gpu-hardware.csv, gpu-interconnect.csv) onto its types.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"

namespace fleetsim {

inline constexpr std::string_view kGpuHardwareFile = "gpu-hardware.csv";
inline constexpr std::string_view kGpuInterconnectFile = "gpu-interconnect.csv";

// Sets `gpu_hardware` on every type whose (gpu_name, gpu_memory_mib) has a row in
// gpu-hardware.csv, and `gpu_interconnect` on every type listed in gpu-interconnect.csv. Both
// files are optional: a catalog without them (a user's own) leaves its types without hardware.
// Rows for GPUs no type carries are ignored.
//
// Throws CatalogError at file:line:col, naming the column, for: a missing column, a malformed,
// negative, zero or absurd value, an unknown interconnect kind, a duplicate row, an
// interconnect row for a type not in the catalog or with fewer than two GPUs.
void load_gpu_hardware(const std::filesystem::path& dir, std::vector<InstanceType>& types);

}  // namespace fleetsim
