// `fleetsim lint --sarif`: the findings as SARIF 2.1.0, the format GitHub code scanning reads.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/scenario/lint/lint.hpp"

namespace fleetsim {

// One run of the tool "fleetsim" with every rule of kLintRules and a result per finding; an
// accepted finding carries a suppression (inSource when the scenario file that accepts it is
// the finding's file, else external) whose justification names the entry. Paths are relative
// to `base` (under %SRCROOT%) when they lie below it, else absolute file: URIs. The text is
// the same for the same inputs (keys sorted, no times).
std::string lint_sarif(const std::vector<LintFinding>& findings,
                       std::span<const LintAcceptance> accepts,
                       const std::filesystem::path& scenario_file,
                       const std::filesystem::path& base);

}  // namespace fleetsim
