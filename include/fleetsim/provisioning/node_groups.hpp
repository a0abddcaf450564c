// eksctl node groups as EC2 Auto Scaling groups, for whichever controller runs them: the
// Cluster Autoscaler resizes them; under Karpenter or EKS Auto Mode they keep their desired
// capacity (a managed node group for system pods beside Karpenter's NodePools, say).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "fleetsim/catalog/gpu_sharing.hpp"
#include "fleetsim/cloudprovider/aws/auto_scaling_group.hpp"
#include "fleetsim/engine/phase_offsets.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/node_group.hpp"
#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim {

struct NodeGroupFleet {
  std::vector<NodePool> pools;                 // as_nodepool of each group; the context's view
  std::unique_ptr<SchedulingContext> context;  // each type's allocatable and DaemonSet overhead
  std::vector<std::unique_ptr<AutoScalingGroup>> asgs;  // in the groups' order
};

// Each group's instance types sized as its nodes will be (its maxPodsPerNode, its volume, the
// DaemonSets that land there), and the node every instance starts as: the group's labels and
// taints, eksctl's and EKS's node-group labels, the EBS volume. Nodes of a group are not
// Karpenter's (Node::node_group is set).
NodeGroupFleet make_node_group_fleet(std::vector<NodeGroup> groups,
                                     std::span<const Workload> daemonsets, Ec2Cloud& cloud,
                                     Cluster& cluster, const Simulation& sim,
                                     GpuSetupContext gpu = {});

// Node groups no autoscaler resizes: at their desired capacity from the start, their lost
// instances replaced every kAutoScalingReconcileInterval.
class StaticNodeGroups final : private EventHandler {
 public:
  StaticNodeGroups(Simulation& sim, NodeGroupFleet fleet) : sim_(sim), fleet_(std::move(fleet)) {}
  // Lost instances are replaced every kAutoScalingReconcileInterval from `offset` (from the
  // interval when 0).
  void start(SimDuration offset = SimDuration{0});

 private:
  void on_event(SimTime now, std::uint64_t tag) override;
  Simulation& sim_;
  NodeGroupFleet fleet_;
};

}  // namespace fleetsim
