#include "fleetsim/catalog/mig_layouts.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

std::vector<MigLayout> load_mig_layouts(const std::filesystem::path& catalog_dir) {
  std::vector<MigLayout> out;
  std::error_code ec;
  const std::filesystem::path path = catalog_dir / kMigLayoutsFile;
  if (!std::filesystem::exists(path, ec)) return out;
  CsvReader csv(path, {.noun = "MIG layout table",
                       .example_header = "gpu_name,gpu_memory_mib,layout,profile,"
                                         "instances_per_gpu,compute_slices,memory_slices,"
                                         "memory_gb",
                       .input = CsvInput::Catalog});
  const std::size_t gpu = csv.require("gpu_name");
  const std::size_t mib = csv.require("gpu_memory_mib");
  const std::size_t layout = csv.require("layout");
  const std::size_t profile = csv.require("profile");
  const std::size_t instances = csv.require("instances_per_gpu");
  const std::size_t compute = csv.require("compute_slices");
  const std::size_t memory = csv.require("memory_slices");
  const std::size_t gb = csv.require("memory_gb");
  while (csv.next_row()) {
    const std::string gpu_name(csv.field(gpu));
    const std::int64_t memory_mib = csv.integer(mib, 1, 1 << 24);
    const std::string name(csv.field(layout));
    if (out.empty() || out.back().gpu_name != gpu_name || out.back().gpu_memory_mib != memory_mib ||
        out.back().name != name)
      out.push_back(MigLayout{.gpu_name = gpu_name, .gpu_memory_mib = memory_mib, .name = name});
    if (csv.field(profile).empty()) continue;  // all-disabled
    out.back().profiles.push_back(
        MigProfile{.name = std::string(csv.field(profile)),
                   .instances_per_gpu = static_cast<int>(csv.integer(instances, 1, 7)),
                   .compute_slices = static_cast<int>(csv.integer(compute, 1, 7)),
                   .memory_slices = static_cast<int>(csv.integer(memory, 1, 8)),
                   .memory_gb = static_cast<int>(csv.integer(gb, 1, 1 << 20))});
  }
  return out;
}

const MigLayout* find_mig_layout(std::span<const MigLayout> layouts, std::string_view gpu_name,
                                 std::int64_t gpu_memory_mib, std::string_view layout) {
  for (const MigLayout& l : layouts)
    if (l.gpu_name == gpu_name && l.gpu_memory_mib == gpu_memory_mib && l.name == layout) return &l;
  return nullptr;
}

bool has_mig(std::span<const MigLayout> layouts, std::string_view gpu_name,
             std::int64_t gpu_memory_mib) {
  return std::any_of(layouts.begin(), layouts.end(), [&](const MigLayout& l) {
    return l.gpu_name == gpu_name && l.gpu_memory_mib == gpu_memory_mib;
  });
}

}  // namespace fleetsim
