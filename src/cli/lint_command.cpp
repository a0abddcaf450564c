// `fleetsim lint`: loads a scenario as `validate` does, then prints each finding of the lint
// rules with its location, what will happen and the fix.
#include <fmt/format.h>

#include <iostream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/scenario/lint/lint.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

int lint_command(const LintOptions& options) {
  const ScenarioConfig config =
      load_scenario(options.scenario, bundled_catalog_root(), {}, options.reading);
  print_warnings(config.warnings, options.warnings, std::cerr);
  const std::vector<LintFinding> findings = lint_scenario(config);
  std::size_t warnings = 0;
  bool failed = false;
  for (const LintFinding& f : findings) {
    std::cout << fmt::format("{}: {} [{}] {}: {}\n    fix: {}\n", f.where.to_string(),
                             to_string(f.severity), f.rule, f.subject, f.what, f.fix);
    warnings += f.severity == LintSeverity::Warning ? 1 : 0;
    failed |= options.fail_on && f.severity >= *options.fail_on;
  }
  if (findings.empty()) {
    std::cout << fmt::format("{}: no findings\n", options.scenario.string());
  } else {
    std::cout << fmt::format("{}: {} finding{} ({} warning{}, {} info)\n",
                             options.scenario.string(), findings.size(),
                             findings.size() == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s",
                             findings.size() - warnings);
  }
  return failed ? kExitCheckFailed : kExitOk;
}

}  // namespace fleetsim
