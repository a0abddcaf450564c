// The sets of NodePools (or node groups) a run has in force, each as the solver sees it.
#pragma once

#include <memory>
#include <vector>

#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim {

// The NodePools (and EC2NodeClasses) in force at some time of the run.
struct PoolSet {
  std::vector<NodePool> pools;
  std::vector<EC2NodeClass> classes;
  std::unique_ptr<SchedulingContext> context;
};

// The scenario's pools, then the result of each scripted apply that changes them; under the
// Cluster Autoscaler, its node groups as pools. Node groups beside NodePools are in every set.
// Sized as EC2 would launch the nodes (AwsInstanceTypes).
std::vector<PoolSet> pool_sets(const ScenarioConfig& config);

}  // namespace fleetsim
