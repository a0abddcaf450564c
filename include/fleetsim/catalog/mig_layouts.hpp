// The MIG layouts a GPU model can take: mig-parted's named configs (the GPU Operator's
// nvidia.com/mig.config label values) with each profile's slices, from the catalog's
// mig-layouts.csv.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

inline constexpr std::string_view kMigLayoutsFile = "mig-layouts.csv";

// One MIG profile of a layout: `instances_per_gpu` instances of `<compute_slices>g.<memory_gb>gb`.
struct MigProfile {
  std::string name;  // "3g.40gb"
  int instances_per_gpu = 0;
  int compute_slices = 0;  // of 7
  int memory_slices = 0;   // of 8
  int memory_gb = 0;
};

struct MigLayout {
  std::string gpu_name;  // as instance-types.csv names it ("a100")
  std::int64_t gpu_memory_mib = 0;
  std::string name;                  // "all-3g.40gb", "all-balanced", "all-disabled"
  std::vector<MigProfile> profiles;  // empty for all-disabled
};

// The layouts of a catalog folder's mig-layouts.csv, in file order; empty without the file.
std::vector<MigLayout> load_mig_layouts(const std::filesystem::path& catalog_dir);

// The layout of that name for a GPU (name and per-GPU MiB), or null.
const MigLayout* find_mig_layout(std::span<const MigLayout> layouts, std::string_view gpu_name,
                                 std::int64_t gpu_memory_mib, std::string_view layout);
// Whether the table has any layout for the GPU (it supports MIG).
bool has_mig(std::span<const MigLayout> layouts, std::string_view gpu_name,
             std::int64_t gpu_memory_mib);

}  // namespace fleetsim
