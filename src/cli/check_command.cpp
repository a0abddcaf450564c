// `fleetsim check`: runs a scenario (or reads a report) and holds it to a baseline report and the
// scenario's gates. Exit 0 within tolerance, 1 on a regression, 2 on bad input.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/cli/output_paths.hpp"
#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/version.hpp"
#include "fleetsim/report/check.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/input_digest.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

void write_file(const std::filesystem::path& path, std::string_view field, const std::string& text,
                bool append = false) {
  if (!append) return write_file_atomically(path, field, text);
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  out << text;
  if (!out)
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     "cannot write this file");
}

// A report to read must be a file; a missing baseline is made by --update-baseline.
void require_file(const std::filesystem::path& path, std::string_view field, bool is_baseline) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status))
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     "a folder, not a report.json");
  if (!std::filesystem::exists(status))
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     is_baseline ? "no such file; to make this run the baseline, rerun with "
                                   "--update-baseline and commit the file it writes"
                                 : "no such file");
}

}  // namespace

int check_command(const CheckOptions& options) {
  std::string new_report;
  std::vector<Gate> gates;
  if (options.scenario) {
    ScenarioConfig config =
        load_scenario(*options.scenario, bundled_catalog_root(), {}, options.reading);
    print_warnings(config.warnings, options.warnings, std::cerr);
    gates = config.gates;
    check_check_outputs(options, &config);
    const ReportProvenance provenance{.version = std::string(kFleetsimVersion),
                                      .inputs = input_digests(config)};
    RunProgress progress(progress_style(options.progress), config.name, config.duration, std::cerr);
    RunOptions run_options;
    if (progress.style() != ProgressStyle::None)
      run_options.progress = [&](SimTime now) { progress.update(now); };
    const RunResult result = run(config, run_options);
    progress.finish();
    new_report = report_json_text(result, &provenance);
  } else {
    check_check_outputs(options, nullptr);
    require_file(*options.report, "--report", false);
    read_report_file(*options.report, "--report");  // a clear error for what is not a report
    std::ifstream in(*options.report);
    std::stringstream text;
    text << in.rdbuf();
    new_report = text.str();
  }
  if (options.update_baseline) {
    std::error_code ec;
    if (std::filesystem::is_directory(options.baseline, ec))
      throw InputError(SourceLocation{.file = options.baseline.string()}, "--baseline",
                       "a folder, not a report.json");
    write_file(options.baseline, "--baseline", new_report);
    std::cout << fmt::format("{}: baseline updated\n", options.baseline.string());
    return kExitOk;
  }
  require_file(options.baseline, "--baseline", true);
  const nlohmann::json baseline = read_report_file(options.baseline, "--baseline");
  const nlohmann::json current = nlohmann::json::parse(new_report);
  std::vector<Tolerance> tolerances = default_tolerances();
  if (options.tolerances) tolerances = load_tolerances(*options.tolerances, std::move(tolerances));
  check_metric_paths({.baseline = baseline,
                      .current = current,
                      .baseline_name = options.baseline.string(),
                      .current_name = options.report ? options.report->string()
                                                     : options.scenario->string() + " (its run)"},
                     tolerances, gates);
  const CheckResult result = check_report(baseline, current, tolerances, gates);
  std::cout << check_table(result);
  const std::string markdown = check_markdown(result);
  if (options.markdown) write_file(*options.markdown, "--markdown", markdown);
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary != nullptr && *summary)
    write_file(summary, "GITHUB_STEP_SUMMARY", markdown, /*append=*/true);
  if (options.junit) write_file(*options.junit, "--junit", check_junit(result));
  return result.failed() ? kExitCheckFailed : kExitOk;
}

}  // namespace fleetsim
