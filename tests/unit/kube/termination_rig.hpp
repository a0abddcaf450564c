// The cloud rig with the node termination every node-removing controller goes through.
#pragma once

#include "fleetsim/kube/node_termination.hpp"
#include "unit/cloudprovider/cloud_rig.hpp"

namespace fleetsim::test {

struct TerminationRig : CloudRig {
  using CloudRig::CloudRig;
  PodDisruptionBudgets pdbs{cluster, {}};
  NodeTermination termination{sim, cluster, bus, cloud, pdbs};
};

}  // namespace fleetsim::test
