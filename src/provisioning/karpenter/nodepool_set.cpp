#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"

#include <algorithm>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/cloudprovider/aws/ebs_pricing.hpp"

namespace fleetsim {

namespace {

// The EC2NodeClass a pool's nodes get: its EBS volumes and kubelet sizing.
struct NodeClassSettings {
  std::span<const BlockDevice> volumes;
  KubeletSizing kubelet;
};

NodeClassSettings node_class_settings(std::span<const EC2NodeClass> node_classes,
                                      const NodePool& pool) {
  NodeClassSettings out;
  for (const EC2NodeClass& nc : node_classes) {
    if (nc.name != pool.node_class) continue;
    out.volumes = nc.block_devices;
    if (nc.max_pods) out.kubelet.max_pods = static_cast<int>(*nc.max_pods);
    // The root volume sizes the node's ephemeral storage, as in Karpenter.
    if (!nc.block_devices.empty())
      out.kubelet.root_volume_bytes = nc.block_devices.front().size_bytes;
  }
  return out;
}

}  // namespace

void merge_nodepools(std::vector<NodePool>& pools, const std::vector<NodePool>& incoming) {
  for (const NodePool& pool : incoming) {
    auto it = std::find_if(pools.begin(), pools.end(),
                           [&](const NodePool& p) { return p.name == pool.name; });
    if (it != pools.end()) {
      *it = pool;
    } else {
      pools.push_back(pool);
    }
  }
}

std::unique_ptr<SchedulingContext> make_scheduling_context(const NodePoolInputs& in,
                                                           const std::vector<NodePool>& pools) {
  std::vector<SchedulingContext::DaemonSet> daemonsets;
  for (const Workload& ds : in.daemonsets) daemonsets.push_back({.spec = &ds.pod.spec});
  std::vector<KubeletSizing> kubelet;
  for (const NodePool& pool : pools)
    kubelet.push_back(node_class_settings(in.node_classes, pool).kubelet);
  return std::make_unique<SchedulingContext>(in.catalog, pools, daemonsets, kubelet);
}

std::vector<PoolLaunchInfo> pool_launch_info(const NodePoolInputs& in,
                                             const std::vector<NodePool>& pools) {
  std::vector<PoolLaunchInfo> out;
  for (const NodePool& pool : pools) {
    const std::span<const BlockDevice> volumes = node_class_settings(in.node_classes, pool).volumes;
    out.push_back(PoolLaunchInfo{.ebs_bytes = ebs_bytes(volumes),
                                 .ebs_price_per_hour = ebs_price_per_hour(volumes)});
  }
  return out;
}

}  // namespace fleetsim
