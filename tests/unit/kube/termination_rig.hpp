// The cloud rig with the node termination every node-removing controller goes through.
#pragma once

#include "fleetsim/kube/node_termination.hpp"
#include "unit/cloudprovider/cloud_rig.hpp"

namespace fleetsim::test {

struct TerminationRig : CloudRig {
  using CloudRig::CloudRig;
  NodeTermination termination{sim, cluster, bus, cloud};
};

}  // namespace fleetsim::test
