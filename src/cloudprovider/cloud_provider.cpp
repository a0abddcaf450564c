#include "fleetsim/cloudprovider/cloud_provider.hpp"

namespace fleetsim {

std::uint32_t offering_of(const Catalog& catalog, const Node& node) {
  const InstanceType& t = catalog.types()[node.type];
  for (std::size_t i = 0; i < t.offerings.size(); ++i)
    if (t.offerings[i].zone == node.zone && t.offerings[i].capacity_type == node.capacity_type)
      return catalog.offering_index(node.type, i);
  FLEETSIM_ASSERT(false);
  return 0;
}

}  // namespace fleetsim
