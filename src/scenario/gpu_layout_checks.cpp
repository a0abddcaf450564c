#include "fleetsim/scenario/gpu_layout_checks.hpp"

#include <fmt/format.h>

#include "fleetsim/catalog/gpu_sharing.hpp"
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
               std::span<const MigLayout> layouts, const std::string& catalog) {
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
}

// What the device plugin would refuse on the owner's nodes of each type (a label naming no config,
// single strategy over a mixed layout, MPS with MIG), at `field`.
void check_devices(const SourceLocation& where, const std::string& field, const Labels& labels,
                   const std::vector<const InstanceType*>& types, const GpuOperatorSettings& s,
                   std::string_view owner) {
  for (const InstanceType* t : types) {
    try {
      (void)gpu_devices(*t, labels, s);
    } catch (const ConfigError& e) {
      throw ConfigError(where, field,
                        fmt::format("{}'s nodes of {}: {}", owner, t->name, e.message()));
    }
  }
}

// A device-plugin.config label with no ConfigMap to select from does nothing.
void warn_unread_label(const SourceLocation& where, const std::string& field, const Labels& labels,
                       const GpuOperatorSettings& s, std::string_view owner, WarningLog& warnings) {
  if (!labels.contains(kDevicePluginConfigLabel) || !s.device_plugin_configs.empty()) return;
  warnings.add(WarningCode::UnusedSettings, where, field,
               fmt::format("{}'s nodes are labelled {}, but gpu_operator.device_plugin_config "
                           "names no ConfigMap of the device plugin's configs: the label selects "
                           "nothing and its GPUs are not shared",
                           owner, kDevicePluginConfigLabel));
}

// Where Bottlerocket's MIG settings come from, for the checks' messages.
struct BottlerocketSource {
  std::string owner;           // "NodePool gpu", "node group mig"
  std::string labels_field;    // where the owner's labels are
  std::string name;            // "EC2NodeClass bottlerocket", "bottlerocket.settings"
  std::string settings_field;  // the warnings' field
};

// Bottlerocket's MIG profiles on a pool's or group's GPU types: it may not also carry the GPU
// Operator's label (two MIG managers); a value nvidia-migmanager reads as the whole GPU warns.
void check_bottlerocket(const BottlerocketSource& src, const SourceLocation& where,
                        const Labels& labels, const BottlerocketMig& mig,
                        const std::vector<const InstanceType*>& types,
                        std::span<const MigLayout> layouts, WarningLog& warnings) {
  if (labels.contains(kMigConfigLabel))
    throw ConfigError(where, src.labels_field + "." + std::string(kMigConfigLabel),
                      fmt::format("{} has the GPU Operator's {} label, but its {} partitions its "
                                  "GPUs with Bottlerocket's MIG settings: give the layout in one "
                                  "place",
                                  src.owner, kMigConfigLabel, src.name));
  for (const InstanceType* t : types) {
    std::string unknown;
    (void)bottlerocket_layout(mig, *t, layouts, &unknown);
    if (unknown.empty()) continue;
    const std::string key = bottlerocket_gpu_key(*t, layouts);
    const std::string layout = bottlerocket_layout(mig, *t, layouts);
    const std::string whole = layout.starts_with("all-") ? layout.substr(4) : layout;
    SourceLocation at = mig.where;
    for (const BottlerocketMig::Entry& e : mig.profiles)
      if (e.gpu == key) at = e.where;
    warnings.add(WarningCode::UnusedSettings, at, src.settings_field,
                 fmt::format("Bottlerocket's nvidia-migmanager does not know MIG profile \"{}\" "
                             "for {} ({}): it applies the whole-GPU profile ({})",
                             unknown.substr(0, 40), key, t->name, whole));
  }
  // A model no type of the catalog has is never applied.
  for (const BottlerocketMig::Entry& e : mig.profiles) {
    bool known = false;
    for (const InstanceType* t : types) known |= bottlerocket_gpu_key(*t, layouts) == e.gpu;
    if (!known)
      warnings.add(WarningCode::UnusedSettings, e.where, src.settings_field,
                   fmt::format("{} launches no type with a {} GPU: its MIG profile applies to "
                               "none of its nodes",
                               src.owner, e.gpu.substr(0, 40)));
  }
}

}  // namespace

void check_gpu_layouts(ScenarioConfig& cfg, WarningLog& warnings) {
  const std::string key(kMigConfigLabel);
  bool loaded = false;
  auto table = [&]() -> std::span<const MigLayout> {
    if (!loaded) cfg.gpu_operator.mig_layouts = load_mig_layouts(cfg.catalog_dir);
    loaded = true;
    return cfg.gpu_operator.mig_layouts;
  };
  const GpuOperatorSettings& s = cfg.gpu_operator;
  const auto& types = cfg.catalog->types();
  for (const NodePool& pool : cfg.nodepools) {
    const std::string owner = fmt::format("NodePool {}", pool.name);
    const std::string labels_field = "NodePool.spec.template.metadata.labels.";
    warn_unread_label(pool.where, labels_field + std::string(kDevicePluginConfigLabel), pool.labels,
                      s, owner, warnings);
    Requirements r = pool.requirements;
    for (const auto& [k, v] : pool.labels) r.add(k, Requirement::single(v));
    std::vector<const InstanceType*> gpu_types;
    for (const InstanceType& t : types)
      if (t.gpu_count > 0 && !t.requirements.first_conflict(r)) gpu_types.push_back(&t);
    const auto label = pool.labels.find(key);
    if (label != pool.labels.end())
      check_one(owner, pool.where, labels_field + key, label->second, gpu_types, table(),
                cfg.catalog_dir.string());
    check_devices(pool.where, "NodePool.spec.template.metadata.labels", pool.labels, gpu_types, s,
                  owner);
    for (const EC2NodeClass& nc : cfg.node_classes)
      if (nc.name == pool.node_class && nc.bottlerocket_mig)
        check_bottlerocket({.owner = owner,
                            .labels_field = "NodePool.spec.template.metadata.labels",
                            .name = "EC2NodeClass " + nc.name,
                            .settings_field = "EC2NodeClass.spec.userData"},
                           pool.where, pool.labels, *nc.bottlerocket_mig, gpu_types, table(),
                           warnings);
  }
  for (const NodeGroup& g : cfg.node_groups) {
    const std::string owner = fmt::format("node group {}", g.name);
    warn_unread_label(g.where, "ClusterConfig.labels." + std::string(kDevicePluginConfigLabel),
                      g.labels, s, owner, warnings);
    std::vector<const InstanceType*> gpu_types;
    for (const std::string& name : g.instance_types)
      if (const InstanceType* t = cfg.catalog->find(name); t != nullptr && t->gpu_count > 0)
        gpu_types.push_back(t);
    const auto label = g.labels.find(key);
    if (label != g.labels.end())
      check_one(owner, g.where, "ClusterConfig.labels." + key, label->second, gpu_types, table(),
                cfg.catalog_dir.string());
    check_devices(g.where, "ClusterConfig.labels", g.labels, gpu_types, s, owner);
    if (g.bottlerocket_mig)
      check_bottlerocket({.owner = owner,
                          .labels_field = "ClusterConfig.labels",
                          .name = "bottlerocket.settings",
                          .settings_field = "ClusterConfig.bottlerocket.settings"},
                         g.where, g.labels, *g.bottlerocket_mig, gpu_types, table(), warnings);
  }
}

}  // namespace fleetsim
