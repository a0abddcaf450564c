#include "fleetsim/provisioning/node_groups.hpp"

#include <array>

#include "fleetsim/cloudprovider/aws/ebs_volumes.hpp"

namespace fleetsim {

NodeGroupFleet make_node_group_fleet(std::vector<NodeGroup> groups,
                                     std::span<const Workload> daemonsets, Ec2Cloud& cloud,
                                     Cluster& cluster, const Simulation& sim, GpuSetupContext gpu) {
  const Catalog& catalog = cloud.catalog();
  NodeGroupFleet fleet;
  std::vector<SchedulingContext::DaemonSet> ds;
  for (const Workload& d : daemonsets) ds.push_back({.spec = &d.pod.spec});
  std::vector<std::vector<Resources>> allocatable;
  for (const NodeGroup& g : groups) {
    fleet.pools.push_back(as_nodepool(g));
    allocatable.push_back(allocatable_by_type(
        cloud, {.max_pods = g.max_pods, .root_volume_bytes = g.root_volume.size_bytes}));
  }
  fleet.context = std::make_unique<SchedulingContext>(catalog, fleet.pools, ds, allocatable);

  for (std::uint32_t i = 0; i < groups.size(); ++i) {
    NodeGroup& g = groups[i];
    const PoolTemplate& tpl = fleet.context->pools()[i];
    AutoScalingGroup::Spec spec;
    GpuSetupContext group_gpu = gpu;
    if (g.bottlerocket_mig && gpu.settings != nullptr)
      group_gpu.bottlerocket = &*g.bottlerocket_mig;
    for (const std::string& name : g.instance_types) {
      const auto t = static_cast<std::uint32_t>(*catalog.index_of(name));
      spec.types.push_back(
          {.type = t,
           .allocatable = tpl.allocatable[t],
           .daemon_overhead = tpl.daemon_overhead[t],
           .gpu_setup = group_gpu.setup(catalog.types()[t], g.labels, tpl.allocatable[t])});
    }
    Node& node = spec.node_template;
    node.owner = NodeGroupOwner{.name = g.name};
    for (const auto& [k, v] : node_group_labels(g)) node.labels.add(k, Requirement::single(v));
    // No NodePool made it: a pod that selects karpenter.sh/nodepool (well known to Karpenter,
    // which its templates always set) must not land here.
    node.labels.add(std::string(label::kNodePool), Requirement::does_not_exist());
    node.taints = g.taints;
    const std::array<BlockDevice, 1> volumes{g.root_volume};
    node.ebs_bytes = ebs_bytes(volumes);
    node.ebs_price_per_hour = cloud.volumes_price_per_hour(volumes);
    RngStream names = sim.rng("node-group-names/" + g.name);
    spec.group = std::move(g);
    fleet.asgs.push_back(
        std::make_unique<AutoScalingGroup>(cloud, cluster, std::move(spec), std::move(names)));
  }
  return fleet;
}

void StaticNodeGroups::start(SimDuration offset) {
  for (auto& asg : fleet_.asgs) asg->set_desired(asg->group().desired_capacity);
  sim_.every(kAutoScalingReconcileInterval,
             first_firing_after_start(sim_.now(), kAutoScalingReconcileInterval, offset),
             Phase::CloudAndNodes, *this, 0);
}

void StaticNodeGroups::on_event(SimTime, std::uint64_t) {
  for (auto& asg : fleet_.asgs) asg->reconcile();
}

}  // namespace fleetsim
