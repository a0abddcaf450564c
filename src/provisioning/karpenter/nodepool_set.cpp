#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"

#include <algorithm>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/cloudprovider/aws/ebs_volumes.hpp"

namespace fleetsim {

namespace {

// The EC2NodeClass a pool's nodes get: its EBS volumes and kubelet sizing.
struct NodeClassSettings {
  std::span<const BlockDevice> volumes;
  KubeletSizing kubelet;
  std::uint64_t hash = 0;                      // EC2NodeClass::spec_hash; 0 without one
  std::span<const std::int32_t> reservations;  // the reservations it selects
};

NodeClassSettings node_class_settings(std::span<const EC2NodeClass> node_classes,
                                      const NodePool& pool) {
  NodeClassSettings out;
  for (const EC2NodeClass& nc : node_classes) {
    if (nc.name != pool.node_class) continue;
    out.volumes = nc.block_devices;
    out.hash = nc.spec_hash;
    out.reservations = nc.reservations;
    if (nc.max_pods) out.kubelet.max_pods = static_cast<int>(*nc.max_pods);
    // The root volume sizes the node's ephemeral storage, as in Karpenter.
    if (!nc.block_devices.empty())
      out.kubelet.root_volume_bytes = nc.block_devices.front().size_bytes;
  }
  return out;
}

}  // namespace

template <typename T>
void merge_by_name(std::vector<T>& into, const std::vector<T>& incoming) {
  for (const T& item : incoming) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const T& existing) { return existing.name == item.name; });
    if (it != into.end()) {
      *it = item;
    } else {
      into.push_back(item);
    }
  }
}

void merge_nodepools(std::vector<NodePool>& pools, const std::vector<NodePool>& incoming) {
  merge_by_name(pools, incoming);
}

void merge_node_classes(std::vector<EC2NodeClass>& classes,
                        const std::vector<EC2NodeClass>& incoming) {
  merge_by_name(classes, incoming);
}

std::unique_ptr<SchedulingContext> make_scheduling_context(const NodePoolInputs& in,
                                                           const std::vector<NodePool>& pools,
                                                           const InstanceTypeSizer& sizer) {
  std::vector<SchedulingContext::DaemonSet> daemonsets;
  for (const Workload& ds : in.daemonsets) daemonsets.push_back({.spec = &ds.pod.spec});
  std::vector<std::vector<Resources>> allocatable;
  std::vector<std::vector<std::uint8_t>> offering_allowed;
  for (const NodePool& pool : pools) {
    const NodeClassSettings settings = node_class_settings(in.node_classes, pool);
    allocatable.push_back(allocatable_by_type(sizer, settings.kubelet));
    // A reservation's offering is the pool's only when its EC2NodeClass selects it.
    std::vector<std::uint8_t>& allowed = offering_allowed.emplace_back();
    if (in.catalog.reservations().empty()) continue;
    allowed.assign(in.catalog.offering_count(), 1);
    for (std::size_t r = 0; r < in.catalog.reservations().size(); ++r)
      allowed[in.catalog.reservation_offering(r)] = 0;
    for (std::int32_t r : settings.reservations)
      allowed[in.catalog.reservation_offering(static_cast<std::size_t>(r))] = 1;
  }
  const OverlayResolution overlays = resolve_node_overlays(in.catalog, pools, in.overlays);
  return std::make_unique<SchedulingContext>(in.catalog, pools, daemonsets, allocatable,
                                             offering_allowed, overlays.pools);
}

std::vector<PoolLaunchInfo> pool_launch_info(const NodePoolInputs& in,
                                             const std::vector<NodePool>& pools,
                                             const CloudProvider& cloud) {
  std::vector<PoolLaunchInfo> out;
  for (const NodePool& pool : pools) {
    const NodeClassSettings settings = node_class_settings(in.node_classes, pool);
    GpuSetupContext gpu = in.gpu;
    // A Bottlerocket class's MIG settings (its userData) apply to the pool's nodes.
    for (const EC2NodeClass& nc : in.node_classes)
      if (nc.name == pool.node_class && nc.bottlerocket_mig)
        gpu.bottlerocket = &*nc.bottlerocket_mig;
    out.push_back(
        PoolLaunchInfo{.ebs_bytes = ebs_bytes(settings.volumes),
                       .ebs_price_per_hour = cloud.volumes_price_per_hour(settings.volumes),
                       .node_class_hash = settings.hash,
                       .gpu = gpu});
  }
  return out;
}

}  // namespace fleetsim
