// A digest of every file a scenario reads (the scenario, its manifests, traces and catalog), so a
// report records what it was made from and `fleetsim check` can tell changed inputs from changed
// behaviour.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

// (name, "fnv1a64:<16 hex digits>") sorted by name. Names are relative to the scenario's folder,
// and "catalog/<file>" for the catalog's files, so that they do not depend on the checkout.
std::vector<std::pair<std::string, std::string>> input_digests(const ScenarioConfig& config);

}  // namespace fleetsim
