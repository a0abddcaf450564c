// Each command's outputs, checked against its inputs and each other before anything runs
// (core/output_path.hpp), so that a bad path fails at once instead of after a long run, and
// never overwrites a scenario, a manifest, a baseline or a device.
#pragma once

#include <filesystem>
#include <vector>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/study/study.hpp"
#include "fleetsim/study/sweep.hpp"

namespace fleetsim {

// `run`: --out's folder and its report.json, events.jsonl and timeseries.csv, and --metrics-out.
void check_run_outputs(const RunCommandOptions& options, const ScenarioConfig& config);
// `check`: --markdown and --junit, or --baseline with --update-baseline. `config`: the scenario
// it runs, or null when it reads --report.
void check_check_outputs(const CheckOptions& options, const ScenarioConfig* config);
// `lint`: --sarif.
void check_lint_outputs(const LintOptions& options, const ScenarioConfig& config);
// `sweep`: --out's folder, reports/, the results file and frontier.csv, against the study, its
// scenario and the files that reads.
void check_sweep_outputs(const std::filesystem::path& study_file, const Study& study,
                         const SweepOptions& sweep);
// `merge`: --out's folder, its results.csv and frontier.csv, against the shards' files.
void check_merge_outputs(const MergeOptions& options,
                         const std::vector<std::filesystem::path>& shards);

}  // namespace fleetsim
