// Checks on a scenario's services that need the NodePools as the solver sees them.
#pragma once

#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim {

// An LLM service without `rates` takes each replica's speed from its node's accelerator, so every
// instance type its Deployment's pods could be launched on must be in the default rate table.
// Throws ConfigError at the service naming the types that are not (up to five), so the run does
// not stop hours in when a replica first lands on one.
void check_llm_rates_cover(const ScenarioConfig& config, const SchedulingContext& context);

}  // namespace fleetsim
