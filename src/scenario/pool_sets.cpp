#include "fleetsim/scenario/pool_sets.hpp"

#include "fleetsim/cloudprovider/aws/aws_instance_types.hpp"
#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"

namespace fleetsim {

std::vector<PoolSet> pool_sets(const ScenarioConfig& config) {
  const AwsInstanceTypes sizer(*config.catalog);  // the nodes EC2 would launch
  std::vector<PoolSet> sets(1);
  if (config.provisioner == ProvisionerKind::ClusterAutoscaler) {
    for (const NodeGroup& g : config.node_groups) sets[0].pools.push_back(as_nodepool(g));
    sets[0].context = make_scheduling_context(
        NodePoolInputs{.catalog = *config.catalog, .daemonsets = config.daemonsets}, sets[0].pools,
        sizer);
    return sets;
  }
  sets[0].pools = config.nodepools;
  sets[0].classes = config.node_classes;
  for (const ScriptedEvent& e : config.events) {
    const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action);
    if (apply == nullptr || (apply->nodepools.empty() && apply->node_classes.empty())) continue;
    PoolSet next{.pools = sets.back().pools, .classes = sets.back().classes};
    merge_nodepools(next.pools, apply->nodepools);
    merge_node_classes(next.classes, apply->node_classes);
    sets.push_back(std::move(next));
  }
  // Node groups beside the NodePools keep their desired capacity: they host pods too.
  for (PoolSet& set : sets)
    for (const NodeGroup& g : config.node_groups) set.pools.push_back(as_nodepool(g));
  for (PoolSet& set : sets) {
    set.context = make_scheduling_context(NodePoolInputs{.catalog = *config.catalog,
                                                         .node_classes = set.classes,
                                                         .daemonsets = config.daemonsets,
                                                         .overlays = config.node_overlays},
                                          set.pools, sizer);
  }
  return sets;
}

}  // namespace fleetsim
