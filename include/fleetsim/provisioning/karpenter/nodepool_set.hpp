// The run's NodePools with their EC2NodeClass settings, and the solver's view of them.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "fleetsim/catalog/gpu_sharing.hpp"
#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim {

// What a NodeClaim of a pool adds at launch besides the instance.
struct PoolLaunchInfo {
  std::int64_t ebs_bytes = 0;
  double ebs_price_per_hour = 0.0;
  std::uint64_t node_class_hash = 0;  // of its EC2NodeClass (drift)
  GpuSetupContext gpu;                // how its nodes configure their GPUs
};

// A scripted apply replaces the NodePools (EC2NodeClasses) it names and adds the others.
void merge_nodepools(std::vector<NodePool>& pools, const std::vector<NodePool>& incoming);
void merge_node_classes(std::vector<EC2NodeClass>& classes,
                        const std::vector<EC2NodeClass>& incoming);

// What the provisioner needs to build its view of a set of NodePools; all must outlive it.
struct NodePoolInputs {
  const Catalog& catalog;
  std::span<const EC2NodeClass> node_classes;
  std::span<const Workload> daemonsets;
  // NodeOverlays in force (none unless karpenter.feature_gates.node_overlay is on).
  std::span<const NodeOverlay> overlays;
  GpuSetupContext gpu;  // the GPU Operator's settings; none: whole GPUs
};

// The solver's view of `pools` (which must outlive it): allocatable as `sizer` (the cloud
// provider) sizes each pool's EC2NodeClass, and DaemonSet overhead, per instance type; the
// NodeOverlays' capacity and prices, as Karpenter's overlay decorator of the cloud provider
// hands them to the pools.
std::unique_ptr<SchedulingContext> make_scheduling_context(const NodePoolInputs& in,
                                                           const std::vector<NodePool>& pools,
                                                           const InstanceTypeSizer& sizer);

// Per pool: the EBS volumes of its EC2NodeClass, priced by the cloud.
std::vector<PoolLaunchInfo> pool_launch_info(const NodePoolInputs& in,
                                             const std::vector<NodePool>& pools,
                                             const CloudProvider& cloud);

}  // namespace fleetsim
