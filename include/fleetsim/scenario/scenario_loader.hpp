// Loads a scenario file and everything it references into a validated, frozen ScenarioConfig.
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/overrides.hpp"
#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

// How the command line asks for a scenario to be read.
struct ReadOptions {
  // --lenient: manifest fields upstream does not have are warnings, not errors (as the
  // scenario's manifest_validation: lenient).
  FieldValidation validation = FieldValidation::Strict;
  // --suppress: warnings of these codes are dropped (with the scenario's warnings.suppress).
  std::vector<WarningCode> suppress;
  // --serving-mode: in place of the scenario's serving_mode (a service's own `simulation:` stays).
  std::optional<ServingMode> serving_mode;
};

// DESIGN.md §5: the longest scenario fleetsim accepts; a year of simulated time plus margin.
// Longer values are almost always a unit typo (6000h for 600h).
inline constexpr SimDuration kMaxScenarioDuration = hours(400 * 24);

// Reads `file` (DESIGN.md §5): its keys, the instance catalog, the manifests, job sources and
// scripted events, resolving what they name (node classes, priority classes, Deployments), then
// runs the validation stage (validate_scenario). Every command loads a scenario here, so they
// all refuse the same inputs.
// `default_catalog_root` is the directory holding the bundled catalogs as aws/<region>/; it is
// used when the scenario names no `catalog`. Throws ConfigError (or CatalogError from the
// catalog, TraceError from a trace) whose what() reads "file:line:col: field: message".
// `overrides` edit the scenario's keys and its manifests as they are read (a sweep's point); one
// that edits nothing is an error. `options` are the command line's.
ScenarioConfig load_scenario(const std::filesystem::path& file,
                             const std::filesystem::path& default_catalog_root = {},
                             std::span<const Override> overrides = {},
                             const ReadOptions& options = {});

}  // namespace fleetsim
