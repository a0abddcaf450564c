// `fleetsim lint`: loads a scenario as `validate` does, then prints each finding of the lint
// rules with its location, what will happen and the fix; the findings the scenario accepts
// (`lint: {accept: [...]}`) are counted instead, and --sarif writes them all for code scanning.
#include <fmt/format.h>

#include <iostream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/cli/output_paths.hpp"
#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/report/lint_sarif.hpp"
#include "fleetsim/scenario/lint/lint.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

std::string plural(std::size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace

int lint_command(const LintOptions& options) {
  const ScenarioConfig config =
      load_scenario(options.scenario, bundled_catalog_root(), {}, options.reading);
  print_warnings(config.warnings, options.warnings, std::cerr);
  check_lint_outputs(options, config);
  std::vector<LintFinding> findings = lint_scenario(config);
  const std::vector<std::size_t> stale = accept_findings(config.lint_accepts, findings);
  std::size_t shown = 0, warnings = 0, accepted = 0;
  bool failed = false;
  for (const LintFinding& f : findings) {
    if (f.accepted_by) {
      ++accepted;
      continue;
    }
    std::cout << fmt::format("{}: {} [{}] {}: {}\n    fix: {}\n", f.where.to_string(),
                             to_string(f.severity), f.rule, f.subject, f.what, f.fix);
    ++shown;
    warnings += f.severity == LintSeverity::Warning ? 1 : 0;
    failed |= options.fail_on && f.severity >= *options.fail_on;
  }
  // An entry that accepts nothing any more would hide a later finding unseen: say so.
  for (std::size_t i : stale) {
    const LintAcceptance& a = config.lint_accepts[i];
    std::cout << fmt::format(
        "{}: note: lint.accept \"{}\" matches no finding (a stale acceptance); remove it\n",
        a.where.to_string(), a.text);
  }
  if (shown == 0) {
    std::cout << fmt::format("{}: no findings\n", options.scenario.string());
  } else {
    std::cout << fmt::format("{}: {} ({}, {} info)\n", options.scenario.string(),
                             plural(shown, "finding"), plural(warnings, "warning"),
                             shown - warnings);
  }
  if (!config.lint_accepts.empty())
    std::cout << fmt::format("{}: {} accepted by lint.accept\n", options.scenario.string(),
                             plural(accepted, "finding"));
  if (options.sarif)
    write_file_atomically(
        *options.sarif, "--sarif",
        lint_sarif(findings, config.lint_accepts, config.file, std::filesystem::current_path()));
  return failed ? kExitCheckFailed : kExitOk;
}

}  // namespace fleetsim
