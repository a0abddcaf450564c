// CloudProvider::instance_types: the nodes EC2 makes for an EC2NodeClass's kubelet settings.
#include "fleetsim/cloudprovider/aws/aws_instance_types.hpp"

#include <catch2/catch.hpp>

#include "unit/cloudprovider/cloud_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

TEST_CASE("EC2 sizes every catalog type for a NodeClass: capacity less overhead is allocatable",
          "[cloudprovider]") {
  CloudRig rig;
  const std::vector<SizedInstanceType> types = rig.cloud.instance_types({});
  REQUIRE(types.size() == rig.catalog.types().size());
  for (std::uint32_t t = 0; t < types.size(); ++t) {
    CHECK(types[t].type == t);
    // Karpenter's defaults are the catalog's own sizing.
    CHECK(types[t].allocatable == rig.catalog.types()[t].allocatable);
    CHECK(types[t].capacity == rig.catalog.types()[t].capacity);
    CHECK(types[t].capacity - types[t].overhead == types[t].allocatable);
  }
  // m5.large: 1930m allocatable of 2000m (kube-reserved 70m).
  CHECK(types[*rig.catalog.index_of("m5.large")].overhead.cpu_millis() == 70);
}

TEST_CASE("a NodeClass's maxPods sizes EC2's nodes, and so what the cloud's pools may pack",
          "[cloudprovider]") {
  CloudRig rig;
  const std::uint32_t large = *rig.catalog.index_of("m5.large");
  const std::vector<SizedInstanceType> types = rig.cloud.instance_types({.max_pods = 10});
  CHECK(types[large].allocatable.pods() == 10);
  CHECK(types[large].capacity.pods() == 10);
  // The scenario checks size nodes the same way without a running cloud.
  const AwsInstanceTypes sizing(rig.catalog);
  CHECK(allocatable_by_type(sizing, {.max_pods = 10})[large] == types[large].allocatable);
}
