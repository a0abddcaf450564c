#include "fleetsim/catalog/gpu_sharing.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fleetsim {

namespace {

constexpr std::string_view kMigConfigLabelName = "nvidia.com/mig.config";
constexpr std::string_view kWholeGpu = "nvidia.com/gpu";

// NVML's device name, which the NVIDIA DRA driver publishes as a device's productName.
std::string_view nvml_device_name(const InstanceType& t) {
  if (t.gpu_name == "a100")
    return t.gpu_memory_mib > 40960 ? "NVIDIA A100-SXM4-80GB" : "NVIDIA A100-SXM4-40GB";
  if (t.gpu_name == "h100") return "NVIDIA H100 80GB HBM3";
  if (t.gpu_name == "h200") return "NVIDIA H200";
  if (t.gpu_name == "b200") return "NVIDIA B200";
  if (t.gpu_name == "a10g") return "NVIDIA A10G";
  if (t.gpu_name == "l40s") return "NVIDIA L40S";
  if (t.gpu_name == "l4") return "NVIDIA L4";
  if (t.gpu_name == "t4") return "Tesla T4";
  return {};
}

// The product GPU Feature Discovery labels a GPU with: NVML's device name with spaces as dashes
// (gpu-feature-discovery's resourceLabeler.productLabel).
std::string product_name(const InstanceType& t) {
  std::string name(nvml_device_name(t));
  std::replace(name.begin(), name.end(), ' ', '-');
  return name;
}

[[noreturn]] void refuse(std::string message) { throw ConfigError({}, {}, std::move(message)); }

// The MIG devices of one GPU under the strategy, or the whole GPU without a layout.
std::vector<GpuDevice> mig_devices(const InstanceType& t, const Labels& labels,
                                   const GpuOperatorSettings& s, MigStrategy strategy) {
  const auto label = labels.find(kMigConfigLabelName);
  if (label == labels.end() || label->second == "all-disabled")
    return {{std::string(kWholeGpu), 1}};
  const MigLayout* layout =
      find_mig_layout(s.mig_layouts, t.gpu_name, t.gpu_memory_mib, label->second);
  if (layout == nullptr)
    refuse(
        fmt::format("MIG layout \"{}\" is not one mig-parted's default config gives {}'s GPU ({})",
                    label->second.substr(0, 60), t.name, t.gpu_name));
  std::vector<GpuDevice> out;
  if (strategy == MigStrategy::Single) {
    // device_map.go: "more than one MIG device type present on node" stops the plugin.
    if (layout->profiles.size() != 1)
      refuse(
          fmt::format("MIG layout \"{}\" mixes profiles, which the device plugin refuses under "
                      "the single MIG strategy (\"more than one MIG device type present on "
                      "node\"): use mig_strategy mixed, or a layout of one profile",
                      layout->name));
    out.push_back({std::string(kWholeGpu), layout->profiles[0].instances_per_gpu});
    return out;
  }
  for (const MigProfile& p : layout->profiles)
    out.push_back({fmt::format("nvidia.com/mig-{}", p.name), p.instances_per_gpu});
  return out;
}

bool has_mig_layout(const Labels& labels) {
  const auto label = labels.find(kMigConfigLabelName);
  return label != labels.end() && label->second != "all-disabled";
}

}  // namespace

std::optional<MigRequest> mig_request(const Resources& requests, const ResourceRegistry& registry) {
  constexpr std::string_view kPrefix = "nvidia.com/mig-";
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const auto slot = static_cast<ResourceIndex>(i);
    std::string_view name = registry.name(slot);
    if (requests[slot] <= 0 || !name.starts_with(kPrefix)) continue;
    name.remove_prefix(kPrefix.size());
    if (name.ends_with(".shared")) name.remove_suffix(std::string_view(".shared").size());
    return MigRequest{.profile = std::string(name), .devices = requests[slot]};
  }
  return std::nullopt;
}

std::optional<GpuShare> mig_profile_share(std::span<const MigLayout> layouts, const InstanceType& t,
                                          std::string_view profile) {
  for (const MigLayout& l : layouts) {
    if (l.gpu_name != t.gpu_name || l.gpu_memory_mib != t.gpu_memory_mib) continue;
    for (const MigProfile& p : l.profiles)
      if (p.name == profile) return mig_share(p.compute_slices, p.memory_slices);
  }
  return std::nullopt;
}

std::string_view to_string(MigStrategy s) { return s == MigStrategy::Single ? "single" : "mixed"; }

const DevicePluginConfig* device_plugin_config(const GpuOperatorSettings& s, const Labels& labels) {
  const auto label = labels.find(kDevicePluginConfigLabel);
  const std::string_view name =
      label != labels.end() ? std::string_view(label->second) : std::string_view(s.default_config);
  if (name.empty()) return nullptr;
  for (const DevicePluginConfig& c : s.device_plugin_configs)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<GpuDevice> gpu_devices(const InstanceType& t, const Labels& labels,
                                   const GpuOperatorSettings& s, bool host_plugin) {
  if (t.gpu_count <= 0 || t.gpu_manufacturer != "nvidia") return {};
  if (host_plugin) return mig_devices(t, labels, s, MigStrategy::Single);
  const DevicePluginConfig* config = device_plugin_config(s, labels);
  const auto label = labels.find(kDevicePluginConfigLabel);
  // Without any configs (no ConfigMap) the label selects nothing: the scenario warns.
  if (label != labels.end() && config == nullptr && !s.device_plugin_configs.empty())
    // config-manager: "specified config ... does not exist": the plugin never starts.
    refuse(fmt::format("{} \"{}\" names no config of the device plugin's ConfigMap",
                       kDevicePluginConfigLabel, label->second.substr(0, 60)));
  const MigStrategy strategy =
      config != nullptr && config->mig_strategy ? *config->mig_strategy : s.mig_strategy;
  std::vector<GpuDevice> devices = mig_devices(t, labels, s, strategy);
  if (config == nullptr || config->sharing == GpuSharingKind::None) return devices;
  if (config->sharing == GpuSharingKind::Mps && has_mig_layout(labels))
    refuse(
        "the device plugin's config shares GPUs with MPS, which it refuses for MIG devices "
        "(\"sharing using MPS is not supported for MIG devices\")");
  for (GpuDevice& d : devices) {
    for (const ReplicatedResource& r : config->resources) {
      if (r.name != d.resource) continue;
      d.per_gpu *= r.replicas;
      if (config->rename_by_default) d.resource += ".shared";
    }
  }
  return devices;
}

std::vector<DraDevice> nvidia_dra_devices(const InstanceType& t, const Labels& labels,
                                          std::span<const MigLayout> layouts) {
  std::vector<DraDevice> out;
  if (t.gpu_count <= 0 || t.gpu_manufacturer != "nvidia") return out;
  const auto plugin = labels.find(kDraKubeletPluginLabel);
  if (plugin == labels.end() || plugin->second != "true") return out;
  const std::string product(nvml_device_name(t));
  const MigLayout* layout = nullptr;
  if (const auto mig = labels.find(kMigConfigLabelName); mig != labels.end())
    layout = find_mig_layout(layouts, t.gpu_name, t.gpu_memory_mib, mig->second);
  for (std::int64_t g = 0; g < t.gpu_count; ++g) {
    // A GPU in MIG mode is published as its MIG devices only (the driver's pre-created
    // instances); all-disabled leaves it whole.
    int instance = 0;
    if (layout != nullptr)
      for (const MigProfile& p : layout->profiles)
        for (int i = 0; i < p.instances_per_gpu; ++i)
          out.push_back({.name = fmt::format("gpu-{}-mig-{}", g, instance++),
                         .driver = std::string(kNvidiaDraDriver),
                         .type = "mig",
                         .product_name = product,
                         .profile = p.name});
    if (instance == 0)
      out.push_back({.name = fmt::format("gpu-{}", g),
                     .driver = std::string(kNvidiaDraDriver),
                     .type = "gpu",
                     .product_name = product});
  }
  std::sort(out.begin(), out.end(),
            [](const DraDevice& a, const DraDevice& b) { return a.name < b.name; });
  return out;
}

NodeGpuSetup node_gpu_setup(const InstanceType& t, const Labels& labels,
                            const Resources& allocatable, const GpuOperatorSettings& s,
                            const ResourceRegistry& registry, bool host_plugin) {
  std::vector<DraDevice> dra = nvidia_dra_devices(t, labels, s.mig_layouts);
  if (!dra.empty()) {
    // The DRA driver hands the GPUs out; the device plugin is not run beside it (NVIDIA: "do not
    // run both on a node"), so the node advertises no nvidia.com GPU resource. A MIG layout
    // still takes the MIG manager's time before the devices are published.
    NodeGpuSetup out;
    Resources r = allocatable;
    for (std::size_t i = 0; i < registry.size(); ++i) {
      const auto slot = static_cast<ResourceIndex>(i);
      const std::string& name = registry.name(slot);
      if (name == kWholeGpu || name == "nvidia.com/gpu.shared" ||
          name.starts_with("nvidia.com/mig-"))
        r[slot] = 0;
    }
    out.allocatable = r;
    if (has_mig_layout(labels)) {
      out.layout = labels.find(kMigConfigLabelName)->second;
      out.delay = s.mig_layout_delay;
    }
    out.dra_devices = std::move(dra);
    return out;
  }
  NodeGpuSetup out;
  const std::vector<GpuDevice> devices = gpu_devices(t, labels, s, host_plugin);
  // One whole device a GPU and no MIG layout: nothing to configure (a 7g layout still is MIG).
  if (devices.size() == 1 && devices[0].resource == kWholeGpu && devices[0].per_gpu == 1 &&
      !has_mig_layout(labels))
    return out;
  if (devices.empty()) return out;
  Resources r = allocatable;
  // What the NodeClaim promised for GPUs (EC2's count, or a NodeOverlay's) goes: the device
  // plugin advertises what the GPUs are configured as.
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const auto slot = static_cast<ResourceIndex>(i);
    const std::string& name = registry.name(slot);
    if (name == kWholeGpu || name == "nvidia.com/gpu.shared" || name.starts_with("nvidia.com/mig-"))
      r[slot] = 0;
  }
  for (const GpuDevice& d : devices)
    if (const auto slot = registry.find(d.resource)) r[*slot] += d.per_gpu * t.gpu_count;
  out.allocatable = r;
  out.physical_gpus = t.gpu_count;
  if (has_mig_layout(labels)) {
    out.layout = labels.find(kMigConfigLabelName)->second;
    out.delay = s.mig_layout_delay;
  }
  const DevicePluginConfig* config = host_plugin ? nullptr : device_plugin_config(s, labels);
  const std::string product = product_name(t);
  if (config != nullptr && config->sharing != GpuSharingKind::None) {
    out.sharing = config->sharing;
    out.fail_requests_greater_than_one = config->fail_requests_greater_than_one;
    for (const ReplicatedResource& rr : config->resources) {
      out.replicas = std::max(out.replicas, rr.replicas);
      const std::string name = config->rename_by_default ? rr.name + ".shared" : rr.name;
      if (!out.replicated) out.replicated = registry.find(name);
    }
  }
  const MigStrategy strategy =
      host_plugin
          ? MigStrategy::Single
          : (config != nullptr && config->mig_strategy ? *config->mig_strategy : s.mig_strategy);
  if (!out.layout.empty()) {
    const MigLayout& layout =
        *find_mig_layout(s.mig_layouts, t.gpu_name, t.gpu_memory_mib, out.layout);
    out.mig_single = strategy == MigStrategy::Single;
    // gpu_devices lists the devices in the layout's order: one per profile (mixed), or the
    // single strategy's one.
    for (std::size_t i = 0; i < layout.profiles.size(); ++i) {
      const MigProfile& p = layout.profiles[i];
      const GpuDevice& d = devices[out.mig_single ? 0 : i];
      out.mig.push_back({.profile = p.name,
                         .per_gpu = p.instances_per_gpu,
                         .compute_slices = p.compute_slices,
                         .resource = registry.find(d.resource),
                         .devices_per_gpu = d.per_gpu});
    }
    if (out.mig_single) {
      const MigProfile& p = layout.profiles[0];
      out.device_share = mig_share(p.compute_slices, p.memory_slices);
    }
  }
  if (out.sharing == GpuSharingKind::Mps) out.device_share = mps_share(out.replicas);
  if (!product.empty()) {
    std::string value(product);
    // gpu-feature-discovery: single strategy names the MIG profile in the product; a shared
    // (not renamed) resource appends -SHARED.
    if (!out.layout.empty() && strategy == MigStrategy::Single)
      value += "-MIG-" + find_mig_layout(s.mig_layouts, t.gpu_name, t.gpu_memory_mib, out.layout)
                             ->profiles[0]
                             .name;
    if (out.sharing != GpuSharingKind::None && config->rename_by_default == false)
      value += "-SHARED";
    out.labels.emplace_back(std::string(kGpuProductLabel), value);
  }
  return out;
}

std::string bottlerocket_gpu_key(const InstanceType& t, std::span<const MigLayout> layouts) {
  // The whole-GPU profile's memory names the model: 7g.80gb -> "a100.80gb".
  for (const MigLayout& l : layouts) {
    if (l.gpu_name != t.gpu_name || l.gpu_memory_mib != t.gpu_memory_mib) continue;
    for (const MigProfile& p : l.profiles)
      if (p.compute_slices == 7 && l.profiles.size() == 1)
        return fmt::format("{}.{}gb", t.gpu_name, p.memory_gb);
  }
  return {};
}

namespace {

// The profile of t's single-profile layouts with `count` instances a GPU, the most compute first
// (nvidia-migmanager's aliases: "7" 1g, "4" 1g of twice the memory, "3" 2g, "2" 3g, "1" 7g).
const MigLayout* layout_with_instances(const InstanceType& t, std::span<const MigLayout> layouts,
                                       int count) {
  const MigLayout* best = nullptr;
  for (const MigLayout& l : layouts) {
    if (l.gpu_name != t.gpu_name || l.gpu_memory_mib != t.gpu_memory_mib) continue;
    if (l.profiles.size() != 1 || l.profiles[0].instances_per_gpu != count) continue;
    if (best == nullptr || l.profiles[0].compute_slices > best->profiles[0].compute_slices)
      best = &l;
  }
  return best;
}

}  // namespace

std::string bottlerocket_layout(const BottlerocketMig& mig, const InstanceType& t,
                                std::span<const MigLayout> layouts, std::string* unknown) {
  const std::string key = bottlerocket_gpu_key(t, layouts);
  if (key.empty()) return {};  // "MIG is not supported by the available NVIDIA GPU"
  std::string value = "1";
  for (const BottlerocketMig::Entry& e : mig.profiles)
    if (e.gpu == key) value = e.value;
  for (int count : {7, 4, 3, 2, 1}) {
    const MigLayout* l = layout_with_instances(t, layouts, count);
    if (l == nullptr) continue;
    if (value == std::to_string(count) || value == l->profiles[0].name) return l->name;
  }
  if (unknown != nullptr) *unknown = value;
  const MigLayout* whole = layout_with_instances(t, layouts, 1);
  return whole != nullptr ? whole->name : std::string();
}

NodeGpuSetup GpuSetupContext::setup(const InstanceType& t, const Labels& labels,
                                    const Resources& allocatable) const {
  if (settings == nullptr || resources == nullptr) return {};
  if (bottlerocket == nullptr) return node_gpu_setup(t, labels, allocatable, *settings, *resources);
  // nvidia-migmanager applies the class's profile at boot; Bottlerocket's device plugin
  // advertises it under the single strategy.
  Labels with_layout = labels;
  const std::string layout = bottlerocket_layout(*bottlerocket, t, settings->mig_layouts);
  if (layout.empty()) {
    with_layout.erase(std::string(kMigConfigLabelName));
  } else {
    with_layout[std::string(kMigConfigLabelName)] = layout;
  }
  return node_gpu_setup(t, with_layout, allocatable, *settings, *resources, /*host_plugin=*/true);
}

}  // namespace fleetsim
