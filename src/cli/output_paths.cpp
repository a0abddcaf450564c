#include "fleetsim/cli/output_paths.hpp"

#include <cstdlib>

#include "fleetsim/catalog/auto_mode.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/catalog/gpu_hardware_loader.hpp"
#include "fleetsim/core/output_path.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

// Every file a loaded scenario read: itself, its manifests, traces and catalog.
std::vector<NamedPath> scenario_inputs(const ScenarioConfig& config) {
  std::vector<NamedPath> out{{"SCENARIO", config.file}};
  for (const std::filesystem::path& p : config.input_files)
    out.push_back({"a file the scenario reads", p});
  for (std::string_view name : {kInstanceTypesFile, kOfferingsFile, kAutoModeFeesFile,
                                kGpuHardwareFile, kGpuInterconnectFile})
    out.push_back({"a catalog file", config.catalog_dir / name});
  return out;
}

}  // namespace

void check_run_outputs(const RunCommandOptions& options, const ScenarioConfig& config) {
  std::vector<OutputPath> outputs{{"--out", options.out_dir, /*is_folder=*/true}};
  for (const char* name : {"report.json", "events.jsonl", "timeseries.csv"})
    outputs.push_back({"--out", options.out_dir / name});
  if (options.metrics_out) outputs.push_back({"--metrics-out", *options.metrics_out});
  check_output_paths(outputs, scenario_inputs(config));
}

void check_check_outputs(const CheckOptions& options, const ScenarioConfig* config) {
  std::vector<NamedPath> inputs;
  if (config != nullptr) inputs = scenario_inputs(*config);
  if (options.report) inputs.push_back({"--report", *options.report});
  if (options.tolerances) inputs.push_back({"--tolerances", *options.tolerances});
  std::vector<OutputPath> outputs;
  if (options.update_baseline) {
    outputs.push_back({"--baseline", options.baseline});
  } else {
    inputs.push_back({"--baseline", options.baseline});
    if (options.markdown) outputs.push_back({"--markdown", *options.markdown});
    if (options.junit) outputs.push_back({"--junit", *options.junit});
    // Appended to, so a terminal there is fine; an input is not.
    if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary != nullptr && *summary)
      check_not_an_input({"GITHUB_STEP_SUMMARY", summary}, inputs);
  }
  check_output_paths(outputs, inputs);
}

void check_lint_outputs(const LintOptions& options, const ScenarioConfig& config) {
  std::vector<OutputPath> outputs;
  if (options.sarif) outputs.push_back({"--sarif", *options.sarif});
  check_output_paths(outputs, scenario_inputs(config));
}

void check_sweep_outputs(const std::filesystem::path& study_file, const Study& study,
                         const SweepOptions& sweep) {
  // The base scenario's files; a point's edits change values, not which files it reads.
  std::vector<NamedPath> inputs =
      scenario_inputs(load_scenario(study.scenario, sweep.catalog_root));
  inputs.push_back({"STUDY", study_file});
  std::vector<OutputPath> outputs{{"--out", sweep.out_dir, true},
                                  {"--out", sweep.out_dir / "reports", true},
                                  {"--out", results_path(sweep)}};
  if (sweep.shard_count <= 1) outputs.push_back({"--out", sweep.out_dir / "frontier.csv"});
  check_output_paths(outputs, inputs);
}

void check_merge_outputs(const MergeOptions& options,
                         const std::vector<std::filesystem::path>& shards) {
  std::vector<NamedPath> inputs;
  for (const std::filesystem::path& p : shards) inputs.push_back({"a shard's results", p});
  const std::vector<OutputPath> outputs{{"--out", options.out_dir, true},
                                        {"--out", options.out_dir / "results.csv"},
                                        {"--out", options.out_dir / "frontier.csv"}};
  check_output_paths(outputs, inputs);
}

}  // namespace fleetsim
