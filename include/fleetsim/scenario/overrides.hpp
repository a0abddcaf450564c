// A what-if's edit of the inputs as they are read: a scenario key, or a field of the manifest of
// one kind and name, set to a value before anything is decoded, so the edited input is checked
// exactly as a hand-written one would be.
#pragma once

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

struct Override {
  // "services[0].traffic.mean_rps" (the scenario file) or
  // "NodePool/gpu-inference: spec.disruption.consolidateAfter" (a manifest by kind and name).
  std::string target;
  std::string kind;  // empty: the scenario file
  std::string name;
  std::vector<std::variant<std::string, std::size_t>> path;  // keys and [indices]
  YAML::Node value;
  SourceLocation where;  // where the target is written (a study file)
};

// Parses `target` into kind, name and path; throws ConfigError at `where` naming what is wrong.
Override parse_override(std::string_view target, YAML::Node value, SourceLocation where);

// Sets the field in `doc`, creating the mappings on the way; an index must exist. Throws
// ConfigError at the override's `where` when the path crosses a scalar or a missing item.
void apply_override(YAML::Node doc, const Override& o);

// Whether a manifest document is the override's kind and metadata.name.
bool override_matches(const YAML::Node& manifest, const Override& o);

}  // namespace fleetsim
