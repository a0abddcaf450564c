#include "fleetsim/cloudprovider/aws/aws_instance_types.hpp"

namespace fleetsim {

std::vector<SizedInstanceType> AwsInstanceTypes::instance_types(
    const KubeletSizing& node_class) const {
  std::vector<SizedInstanceType> out;
  out.reserve(catalog_.types().size());
  for (std::uint32_t t = 0; t < catalog_.types().size(); ++t) {
    const NodeSizing s = size_instance_type(catalog_.types()[t], node_class);
    out.push_back({.type = t,
                   .capacity = s.capacity,
                   .overhead = s.kube_reserved + s.system_reserved + s.eviction_threshold,
                   .allocatable = s.allocatable});
  }
  return out;
}

}  // namespace fleetsim
