// GPU sharing as users configure it on AWS: the GPU Operator's MIG manager applies the layout a
// node's nvidia.com/mig.config label names (mig-parted's named configs), and the NVIDIA device
// plugin advertises the result, under the GPU Operator's MIG strategy, with the time-slicing or
// MPS replicas of the config its nvidia.com/device-plugin.config label (or the default) selects.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/catalog/mig_layouts.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/gpu_setup.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

inline constexpr std::string_view kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";
inline constexpr std::string_view kGpuProductLabel = "nvidia.com/gpu.product";

// The device plugin's MIG strategy (flags.migStrategy; the GPU Operator's mig.strategy):
// single advertises every MIG device as nvidia.com/gpu, mixed as nvidia.com/mig-<profile>.
enum class MigStrategy : std::uint8_t { Single, Mixed };
std::string_view to_string(MigStrategy s);

// sharing.timeSlicing.resources[] or sharing.mps.resources[] of the device plugin's config.
struct ReplicatedResource {
  std::string name;  // nvidia.com/gpu, nvidia.com/mig-1g.10gb
  int replicas = 0;  // at least 2 (replicas.go)
  SourceLocation where;
};

// One config of the device plugin's ConfigMap (a key of its data), as the plugin reads it.
struct DevicePluginConfig {
  std::string name;
  SourceLocation where;
  std::optional<MigStrategy> mig_strategy;  // flags.migStrategy (none: the GPU Operator's)
  GpuSharingKind sharing = GpuSharingKind::None;
  bool rename_by_default = false;
  bool fail_requests_greater_than_one = false;  // true by default under MPS (config.go)
  std::vector<ReplicatedResource> resources;
};

// The GPU Operator's settings a scenario gives (its Helm values) and the tables they read.
struct GpuOperatorSettings {
  MigStrategy mig_strategy = MigStrategy::Single;  // mig.strategy (Helm default single)
  // No source measures how long the MIG manager takes to apply a layout (it stops the GPU
  // clients, repartitions, restarts the device plugin): a documented assumption.
  SimDuration mig_layout_delay = minutes(2);
  std::vector<DevicePluginConfig> device_plugin_configs;  // devicePlugin.config.name's data
  std::string default_config;                             // devicePlugin.config.default
  std::vector<MigLayout> mig_layouts;                     // the catalog's mig-layouts.csv
};

// The config a node with these labels runs: its nvidia.com/device-plugin.config label's, else
// the default; null for none. A label naming no config is the caller's error (see check).
const DevicePluginConfig* device_plugin_config(const GpuOperatorSettings& s, const Labels& labels);

// What one GPU of the node offers, in the device plugin's resource names.
struct GpuDevice {
  std::string resource;
  std::int64_t per_gpu = 0;
};

// How a node of type `t` with `labels` configures its GPUs; `allocatable` is what its NodeClaim
// or node group template promised. Resources the registry does not know are left out (no pod asks
// for them). Null setup (nothing changes) for a type without NVIDIA GPUs or no configuration.
// `host_plugin`: Bottlerocket's own device plugin runs instead of the GPU Operator's (MIG under
// the single strategy, none of the GPU Operator's device plugin configs).
NodeGpuSetup node_gpu_setup(const InstanceType& t, const Labels& labels,
                            const Resources& allocatable, const GpuOperatorSettings& s,
                            const ResourceRegistry& registry, bool host_plugin = false);

// The devices the NVIDIA DRA driver publishes on a node of type t with `labels`: none unless the
// labels carry nvidia.com/dra-kubelet-plugin: "true" (its kubelet plugin's nodeSelector); else
// one "gpu" device per GPU (gpu-0 …), or with a MIG layout one "mig" device per instance
// (gpu-0-mig-0 …, the layout's order), in name order.
std::vector<DraDevice> nvidia_dra_devices(const InstanceType& t, const Labels& labels,
                                          std::span<const MigLayout> layouts);

// The devices per GPU, before the registry: for the checks, the lint and the tests. Throws
// InputError (without a location) when the device plugin would refuse the setup.
std::vector<GpuDevice> gpu_devices(const InstanceType& t, const Labels& labels,
                                   const GpuOperatorSettings& s, bool host_plugin = false);

// The mig-parted layout Bottlerocket's nvidia-migmanager applies on type t
// (sources/nvidia-migmanager: the value for the GPU's model, "1" when none; a count picks the
// profile with that many instances, the largest for "1"; a value it does not know becomes the
// whole-GPU profile, serde(other)). Empty for a GPU without MIG. `unknown` is set to the value
// read as the whole GPU, if any.
std::string bottlerocket_layout(const BottlerocketMig& mig, const InstanceType& t,
                                std::span<const MigLayout> layouts, std::string* unknown = nullptr);
// The model key Bottlerocket gives t's GPU ("a100.80gb"), or empty without MIG.
std::string bottlerocket_gpu_key(const InstanceType& t, std::span<const MigLayout> layouts);

// A pod's request for MIG devices of one profile, as the mixed strategy advertises them
// (nvidia.com/mig-<profile>, or its .shared name when time-sliced with renameByDefault).
struct MigRequest {
  std::string profile;  // "3g.40gb"
  std::int64_t devices = 0;
};
std::optional<MigRequest> mig_request(const Resources& requests, const ResourceRegistry& registry);

// What one MIG device of `profile` is of type t's GPU (mig_share of its slices), or nullopt
// where no layout mig-parted gives that GPU has the profile.
std::optional<GpuShare> mig_profile_share(std::span<const MigLayout> layouts, const InstanceType& t,
                                          std::string_view profile);

// What launches need to configure a node's GPUs; both null: nodes keep whole GPUs.
struct GpuSetupContext {
  const GpuOperatorSettings* settings = nullptr;
  const ResourceRegistry* resources = nullptr;
  // The pool's EC2NodeClass is Bottlerocket with MIG in its userData.
  const BottlerocketMig* bottlerocket = nullptr;
  NodeGpuSetup setup(const InstanceType& t, const Labels& labels,
                     const Resources& allocatable) const;
};

}  // namespace fleetsim
