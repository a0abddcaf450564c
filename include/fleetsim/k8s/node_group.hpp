// An eksctl node group (eksctl.io/v1alpha5 ClusterConfig): an EC2 Auto Scaling group of one
// template, which the Cluster Autoscaler resizes between its min and max.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/k8s/capacity_type.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

// How an Auto Scaling group picks among its instance types (and zones) for one launch.
// fleetsim has no data on spare capacity, so capacity-optimized and price-capacity-optimized
// take the cheapest offering with capacity, as lowest-price does; prioritized and
// capacity-optimized-prioritized take the types in the group's order.
enum class AllocationStrategy : std::uint8_t { LowestPrice, Prioritized };

struct NodeGroup {
  std::string name;
  bool managed = true;  // managedNodeGroups (else nodeGroups, self-managed)
  // In the file's order; the first is the Cluster Autoscaler's template.
  std::vector<std::string> instance_types;
  std::vector<SourceLocation> instance_type_where;
  std::vector<std::string> zones;  // empty: every zone the catalog sells the types in
  SourceLocation zones_where;
  int min_size = 0;
  int max_size = 0;
  int desired_capacity = 0;
  // instancesDistribution (a managed group: base 0 and 100% on-demand, or 0% with spot: true).
  int on_demand_base = 0;
  int on_demand_percentage_above_base = 100;
  AllocationStrategy spot_strategy = AllocationStrategy::LowestPrice;
  AllocationStrategy on_demand_strategy = AllocationStrategy::Prioritized;
  Labels labels;
  std::vector<Taint> taints;
  BlockDevice root_volume;      // volumeSize (GiB, default 80) and volumeType (default gp3)
  std::optional<int> max_pods;  // maxPodsPerNode
  // amiFamily Bottlerocket with MIG in its bottlerocket.settings (nvidia-migmanager).
  std::optional<BottlerocketMig> bottlerocket_mig;
  SourceLocation where;  // the group's entry
  // The Cluster Autoscaler's scale-from-zero template as the group's tags give it
  // (k8s.io/cluster-autoscaler/node-template/resources/<name>, /label/<key>, /taint/<key>): a
  // resource's amount replaces the instance type's (in the resource's units: bytes, millicores
  // for cpu, a count otherwise), labels and taints are added.
  std::vector<std::pair<std::string, std::int64_t>> template_resources;
  Labels template_labels;
  std::vector<Taint> template_taints;
  // Whether the template has the group's own labels and taints: a managed group's, which the
  // autoscaler reads through EKS's DescribeNodegroup, or a self-managed one's that eksctl copies
  // to the ASG as tags (propagateASGTags); a self-managed group's are otherwise unknown to it.
  bool template_has_group_labels = true;

  // Of `instances` running, how many the instances distribution wants on-demand: the base,
  // then the percentage of the rest, rounded up (EC2 Auto Scaling favours on-demand).
  int on_demand_count(int instances) const;
};

// The group as a NodePool the solver can read: its instance types and zones as requirements,
// its labels and taints.
NodePool as_nodepool(const NodeGroup& group);

// The labels a group's nodes carry: its own, alpha.eksctl.io/nodegroup-name, and for a managed
// group EKS's eks.amazonaws.com/nodegroup and eks.amazonaws.com/capacityType (guides select on
// them).
Labels node_group_labels(const NodeGroup& group);

// eksctl's defaults (pkg/apis/eksctl.io/v1alpha5/types.go): DefaultNodeCount, the root volume.
inline constexpr int kEksctlDefaultNodeCount = 2;
inline constexpr int kEksctlDefaultVolumeGiB = 80;

}  // namespace fleetsim
