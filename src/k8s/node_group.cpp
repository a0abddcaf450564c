#include "fleetsim/k8s/node_group.hpp"

#include <algorithm>

namespace fleetsim {

int NodeGroup::on_demand_count(int instances) const {
  const int base = std::min(on_demand_base, instances);
  const int above = instances - base;
  return base + (above * on_demand_percentage_above_base + 99) / 100;
}

}  // namespace fleetsim
