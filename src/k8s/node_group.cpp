#include "fleetsim/k8s/node_group.hpp"

#include <algorithm>

namespace fleetsim {

int NodeGroup::on_demand_count(int instances) const {
  const int base = std::min(on_demand_base, instances);
  const int above = instances - base;
  return base + (above * on_demand_percentage_above_base + 99) / 100;
}

NodePool as_nodepool(const NodeGroup& g) {
  NodePool pool;
  pool.name = g.name;
  pool.requirements.add(std::string(label::kInstanceType),
                        Requirement::make(Operator::In, g.instance_types));
  pool.requirements.add(std::string(label::kZone), Requirement::make(Operator::In, g.zones));
  pool.labels = g.labels;
  pool.taints = g.taints;
  pool.where = g.where;
  return pool;
}

}  // namespace fleetsim
