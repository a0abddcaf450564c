// The validation stage: the checks that hold the parts of a read scenario against one another,
// run once by load_scenario, so that run, validate, lint, check, compare and sweep refuse the
// same inputs.
#pragma once

#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

// In this order:
//  - each HPA and ScaledObject scales a Deployment of the manifests, one autoscaler each, and
//    reads only metrics the simulation produces (or a `metrics.aliases` name);
//  - node groups against the catalog (check_node_groups; fills in their zones);
//  - the Cluster Autoscaler has node groups to resize (its unused NodePools get a warning);
//  - the checks against the NodePools as solved (check_against_nodepools);
//  - every job trace is read through, so a bad row is refused before a run, not during it.
// Throws ConfigError or TraceError at the input; adds warnings to config.warnings and leaves
// them in file order. It narrows services' pods to the GPUs that hold their model, so it runs
// once per config.
void validate_scenario(ScenarioConfig& config);

}  // namespace fleetsim
