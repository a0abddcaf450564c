// Runs a loaded scenario into its three outputs; shared by `fleetsim run` and the golden tests.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>

#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

struct ScenarioOutputs {
  std::ostream* events = nullptr;      // events.jsonl
  std::ostream* timeseries = nullptr;  // timeseries.csv
  std::function<void(SimTime)> progress;  // optional, called about 100 times
};

// Returns report.json.
nlohmann::ordered_json run_scenario(const ScenarioConfig& config, const ScenarioOutputs& outputs);

}  // namespace fleetsim
