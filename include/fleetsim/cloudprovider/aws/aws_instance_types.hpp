// EC2's instance types as Karpenter's AWS provider sizes them for an EC2NodeClass (capacity,
// kube-reserved, eviction threshold, allocatable; aws_node_sizing.hpp has the arithmetic).
#pragma once

#include <vector>

#include "fleetsim/cloudprovider/cloud_provider.hpp"

namespace fleetsim {

class AwsInstanceTypes final : public InstanceTypeSizer {
 public:
  // `catalog` must outlive this.
  explicit AwsInstanceTypes(const Catalog& catalog) : catalog_(catalog) {}
  std::vector<SizedInstanceType> instance_types(const KubeletSizing& node_class) const override;

 private:
  const Catalog& catalog_;
};

}  // namespace fleetsim
