#include "fleetsim/scenario/gpu_layout_checks.hpp"

#include <fmt/format.h>

#include "fleetsim/catalog/mig_layouts.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kDisabled = "all-disabled";

// The layout names the table gives a GPU, for the error message.
std::string layouts_of(std::span<const MigLayout> layouts, const InstanceType& t) {
  std::string out;
  for (const MigLayout& l : layouts) {
    if (l.gpu_name != t.gpu_name || l.gpu_memory_mib != t.gpu_memory_mib) continue;
    out += (out.empty() ? "" : ", ") + l.name;
  }
  return out;
}

// `owner` ("NodePool gpu"), `field` the label's path; `types` the GPU types it may launch.
void check_one(std::string_view owner, const SourceLocation& where, const std::string& field,
               const std::string& layout, const std::vector<const InstanceType*>& types,
               std::span<const MigLayout> layouts, const std::string& catalog,
               WarningLog& warnings) {
  if (types.empty() || layout == kDisabled) return;
  for (const InstanceType* t : types) {
    if (layouts.empty())
      throw ConfigError(where, field,
                        fmt::format("{} asks for MIG layout \"{}\", but the catalog ({}) has no "
                                    "{}: fleetsim cannot tell which layouts its GPUs take",
                                    owner, layout, catalog, kMigLayoutsFile));
    if (!has_mig(layouts, t->gpu_name, t->gpu_memory_mib))
      throw ConfigError(where, field,
                        fmt::format("{} asks for MIG layout \"{}\", but it may launch {}, whose "
                                    "GPU ({}) has no MIG: keep the pool's instance types to MIG "
                                    "GPUs (A100, H100, H200, B200)",
                                    owner, layout, t->name, t->gpu_name));
    if (find_mig_layout(layouts, t->gpu_name, t->gpu_memory_mib, layout) == nullptr)
      throw ConfigError(
          where, field,
          fmt::format("{} asks for MIG layout \"{}\", which mig-parted's default config does not "
                      "give {}'s GPU ({}, {} MiB); expected one of {}",
                      owner, layout.substr(0, 60), t->name, t->gpu_name, t->gpu_memory_mib,
                      layouts_of(layouts, *t)));
  }
  warnings.add(WarningCode::GpuLayoutNotModelled, where, field,
               fmt::format("{}'s nodes get MIG layout \"{}\" from the GPU Operator, which "
                           "fleetsim does not model yet: they offer whole GPUs "
                           "(nvidia.com/gpu), or what a NodeOverlay says",
                           owner, layout));
}

}  // namespace

void check_gpu_layouts(const ScenarioConfig& cfg, WarningLog& warnings) {
  const std::string key(kMigConfigLabel);
  std::vector<MigLayout> layouts;
  bool loaded = false;
  auto table = [&]() -> std::span<const MigLayout> {
    if (!loaded) layouts = load_mig_layouts(cfg.catalog_dir);
    loaded = true;
    return layouts;
  };
  const auto& types = cfg.catalog->types();
  for (const NodePool& pool : cfg.nodepools) {
    const auto label = pool.labels.find(key);
    if (label == pool.labels.end()) continue;
    Requirements r = pool.requirements;
    for (const auto& [k, v] : pool.labels) r.add(k, Requirement::single(v));
    std::vector<const InstanceType*> gpu_types;
    for (const InstanceType& t : types)
      if (t.gpu_count > 0 && !t.requirements.first_conflict(r)) gpu_types.push_back(&t);
    check_one(fmt::format("NodePool {}", pool.name), pool.where,
              "NodePool.spec.template.metadata.labels." + key, label->second, gpu_types, table(),
              cfg.catalog_dir.string(), warnings);
  }
  for (const NodeGroup& g : cfg.node_groups) {
    const auto label = g.labels.find(key);
    if (label == g.labels.end()) continue;
    std::vector<const InstanceType*> gpu_types;
    for (const std::string& name : g.instance_types)
      if (const InstanceType* t = cfg.catalog->find(name); t != nullptr && t->gpu_count > 0)
        gpu_types.push_back(t);
    check_one(fmt::format("node group {}", g.name), g.where, "ClusterConfig.labels." + key,
              label->second, gpu_types, table(), cfg.catalog_dir.string(), warnings);
  }
}

}  // namespace fleetsim
