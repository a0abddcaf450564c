#include "fleetsim/cloudprovider/cloud_provider.hpp"

namespace fleetsim {

std::vector<Resources> allocatable_by_type(const InstanceTypeSizer& sizer,
                                           const KubeletSizing& node_class) {
  std::vector<Resources> out;
  for (const SizedInstanceType& t : sizer.instance_types(node_class)) out.push_back(t.allocatable);
  return out;
}

std::uint32_t offering_of(const Catalog& catalog, const Node& node) {
  const std::optional<std::uint32_t> g =
      catalog.find_offering(node.type, node.zone, node.capacity_type);
  FLEETSIM_ASSERT(g.has_value());  // a node is launched from one of its type's offerings
  return *g;
}

}  // namespace fleetsim
