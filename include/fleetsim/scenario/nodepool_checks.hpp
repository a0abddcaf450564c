// Checks that need the NodePools as the solver sees them, run when a scenario loads so that
// `validate` reports what the run would hit. They cover every set of NodePools the run will
// have: the scenario's and the result of each scripted apply.
#pragma once

#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

// In this order:
//  - a service's `model` keeps its Deployment's pods off GPUs too small to hold it, as a
//    nodeAffinity on karpenter.k8s.aws/instance-gpu-memory would (a warning names the types
//    left out; a ConfigError when none is left);
//  - a workload whose pods no NodePool can ever host gets a warning with each pool's reason,
//    from the provisioner's own solver.
void check_against_nodepools(ScenarioConfig& config, WarningLog& warnings);

}  // namespace fleetsim
