#include "fleetsim/cloudprovider/aws/auto_scaling_group.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fleetsim {

AutoScalingGroup::AutoScalingGroup(Ec2Cloud& cloud, Cluster& cluster, Spec spec, RngStream names)
    : cloud_(cloud), cluster_(cluster), spec_(std::move(spec)), names_(std::move(names)) {}

void AutoScalingGroup::set_desired(int desired) {
  desired_ = desired;
  reconcile();
}

int AutoScalingGroup::reconcile() {
  std::erase_if(instances_, [&](NodeId id) { return !cluster_.node(id).is_live(); });
  // A group above its desired capacity (desired lowered by hand) would terminate instances;
  // the Cluster Autoscaler only lowers it by detaching the node it removes, so it never is.
  while (static_cast<int>(instances_.size()) < desired_) {
    if (!launch_one()) break;
  }
  return std::max(0, desired_ - static_cast<int>(instances_.size()));
}

void AutoScalingGroup::detach(NodeId node) {
  std::erase(instances_, node);
  desired_ = std::max(0, desired_ - 1);
}

bool AutoScalingGroup::launch_one() {
  const NodeGroup& g = spec_.group;
  const Catalog& catalog = cloud_.catalog();
  int on_demand = 0;
  for (NodeId id : instances_)
    on_demand += cluster_.node(id).capacity_type == CapacityType::OnDemand ? 1 : 0;
  const int count = static_cast<int>(instances_.size());
  const CapacityType ct =
      on_demand < g.on_demand_count(count + 1) ? CapacityType::OnDemand : CapacityType::Spot;
  const AllocationStrategy strategy =
      ct == CapacityType::Spot ? g.spot_strategy : g.on_demand_strategy;

  // Zones by how few of the group's instances they hold (AZ rebalancing), then by name.
  std::vector<std::pair<int, std::string>> zones;
  for (const std::string& zone : g.zones) {
    int held = 0;
    for (NodeId id : instances_) held += cluster_.node(id).zone == zone ? 1 : 0;
    zones.emplace_back(held, zone);
  }
  std::sort(zones.begin(), zones.end());

  std::vector<Ec2Cloud::OfferingChoice> choices;
  for (const auto& [held, zone] : zones) {
    const std::size_t first = choices.size();
    for (const InstanceTypeOption& option : spec_.types) {
      const std::optional<std::uint32_t> offering = catalog.find_offering(option.type, zone, ct);
      if (!offering) continue;
      choices.push_back({.offering = *offering,
                         .allocatable = option.allocatable,
                         .daemon_overhead = option.daemon_overhead,
                         .gpu_setup = option.gpu_setup});
    }
    if (strategy == AllocationStrategy::LowestPrice) {
      std::stable_sort(choices.begin() + static_cast<std::ptrdiff_t>(first), choices.end(),
                       [&](const Ec2Cloud::OfferingChoice& a, const Ec2Cloud::OfferingChoice& b) {
                         return cloud_.price(a.offering) < cloud_.price(b.offering);
                       });
    }
  }
  Node node = spec_.node_template;
  node.name = names_.unique(spec_.group.name);
  const std::optional<NodeId> id = cloud_.launch_first(std::move(node), choices);
  if (!id) return false;
  instances_.push_back(*id);
  return true;
}

}  // namespace fleetsim
