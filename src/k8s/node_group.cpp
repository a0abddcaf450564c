#include "fleetsim/k8s/node_group.hpp"

#include <algorithm>

namespace fleetsim {

int NodeGroup::on_demand_count(int instances) const {
  const int base = std::min(on_demand_base, instances);
  const int above = instances - base;
  return base + (above * on_demand_percentage_above_base + 99) / 100;
}

Labels node_group_labels(const NodeGroup& g) {
  Labels labels = g.labels;
  labels["alpha.eksctl.io/nodegroup-name"] = g.name;
  if (g.managed) {
    labels["eks.amazonaws.com/nodegroup"] = g.name;
    labels["eks.amazonaws.com/capacityType"] = g.on_demand_count(1) == 0 ? "SPOT" : "ON_DEMAND";
  }
  return labels;
}

NodePool as_nodepool(const NodeGroup& g) {
  NodePool pool;
  pool.name = g.name;
  pool.requirements.add(std::string(label::kInstanceType),
                        Requirement::make(Operator::In, g.instance_types));
  pool.requirements.add(std::string(label::kZone), Requirement::make(Operator::In, g.zones));
  pool.labels = node_group_labels(g);
  pool.taints = g.taints;
  pool.where = g.where;
  pool.node_group = true;
  return pool;
}

}  // namespace fleetsim
