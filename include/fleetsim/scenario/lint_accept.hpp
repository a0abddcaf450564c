// The lint findings a scenario accepts, `lint: {accept: [RULE, RULE@FILE, RULE@FILE:LINE]}`:
// findings a team has reviewed, which `fleetsim lint` then counts instead of reporting.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

class YamlValue;

struct LintAcceptance {
  std::string text;  // the entry as written
  std::string rule;  // an id of kLintRules
  // The file it applies to, resolved against the scenario's folder; nullopt: every file.
  std::optional<std::filesystem::path> file;
  int line = 0;          // 0: every line
  SourceLocation where;  // the entry in the scenario file
};

// `lint:`'s value, with relative files resolved against `base_dir`. Throws ConfigError at an
// entry naming an unknown rule (with a did-you-mean) or malformed.
std::vector<LintAcceptance> decode_lint_accepts(const YamlValue& lint,
                                                const std::filesystem::path& base_dir);

}  // namespace fleetsim
