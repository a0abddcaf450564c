// `fleetsim sweep` and `fleetsim merge`: a study's runs, resumable and shardable, and the summary
// with the cost / SLO frontier.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/cli/output_paths.hpp"
#include "fleetsim/cli/warning_report.hpp"
#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/study/merge.hpp"
#include "fleetsim/study/results_file.hpp"
#include "fleetsim/study/study_summary.hpp"
#include "fleetsim/study/sweep.hpp"

namespace fleetsim {

namespace {

// "2/5" or "auto/5" (the index from $JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets
// it); nullopt with `error` set when it is neither.
std::optional<std::pair<unsigned, unsigned>> parse_shard(const std::string& text,
                                                         std::string& error) {
  const auto slash = text.find('/');
  std::string index = text.substr(0, slash);
  if (index == "auto") {
    const char* env = std::getenv("JOB_COMPLETION_INDEX");
    if (env == nullptr) {
      error = "auto needs $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it)";
      return std::nullopt;
    }
    index = env;
  }
  const std::string count = slash == std::string::npos ? "" : text.substr(slash + 1);
  auto whole = [](const std::string& s, unsigned& v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
  };
  unsigned i = 0, n = 0;
  if (!whole(index, i) || !whole(count, n) || n == 0 || i >= n) {
    error = fmt::format("expected I/N with 0 <= I < N (or auto/N), got \"{}\"", text.substr(0, 40));
    return std::nullopt;
  }
  return std::pair{i, n};
}

// Prints the summary and writes frontier.csv beside the results; for a partial merge, says so
// first and writes frontier-partial.csv instead (and removes a frontier.csv of before), so that
// nothing reads a frontier of some runs as the study's.
void summarize(const std::filesystem::path& results, const std::filesystem::path& out_dir,
               const std::string& partial = {}) {
  if (!partial.empty()) {
    std::error_code ec;
    std::filesystem::remove(out_dir / "frontier.csv", ec);
    std::cout << "PARTIAL: " << partial
              << "; the means and the frontier are of the runs there are\n";
  }
  if (read_results(results).rows.empty()) return;  // no runs
  const StudySummary summary = summarize_results(results);
  const std::filesystem::path frontier =
      out_dir / (partial.empty() ? "frontier.csv" : "frontier-partial.csv");
  std::cout << summary_table(summary);
  write_file_atomically(frontier, "--out", frontier_csv(summary));
  std::cout << fmt::format("results: {}{}, frontier: {}\n", results.string(),
                           partial.empty() ? "" : " (partial)", frontier.string());
}

// --out must be a folder, or be creatable as one.
void make_out_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
    throw InputError(SourceLocation{.file = dir.string()}, "--out",
                     "not a folder (a file is in the way)");
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw InputError(SourceLocation{.file = dir.string()}, "--out",
                     "cannot create this folder: " + ec.message());
}

}  // namespace

int sweep_command(const SweepCommandOptions& options) {
  SweepOptions sweep{
      .out_dir = options.out_dir, .catalog_root = bundled_catalog_root(), .jobs = options.jobs};
  if (options.shard) {
    std::string error;
    const auto shard = parse_shard(*options.shard, error);
    if (!shard) {
      std::cerr << "error: --shard: " << error << '\n';
      return kExitBadInput;
    }
    std::tie(sweep.shard_index, sweep.shard_count) = *shard;
  }
  const Study study = load_study(options.study, bundled_catalog_root(), options.reading);
  check_sweep_outputs(options.study, study, sweep);
  make_out_dir(options.out_dir);
  print_warnings(study.warnings, options.warnings, std::cerr);
  sweep.note = [](const std::string& note) { std::cerr << "note: " << note << '\n'; };
  SweepProgress progress(progress_style(options.progress), std::cerr);
  sweep.progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); };
  const std::filesystem::path results = run_sweep(study, sweep);
  progress.finish();
  if (sweep.shard_count > 1) {
    std::cout << fmt::format("shard {} of {}: {}; join the shards with fleetsim merge\n",
                             sweep.shard_index, sweep.shard_count, results.string());
    return kExitOk;
  }
  summarize(results, options.out_dir);
  return kExitOk;
}

int merge_command(const MergeOptions& options) {
  const std::vector<std::filesystem::path> shards = shard_files(options.inputs);
  check_merge_outputs(options, shards);
  make_out_dir(options.out_dir);
  const std::filesystem::path results = options.out_dir / "results.csv";
  const MergeOutcome outcome = merge_results(shards, results, options.allow_partial);
  summarize(results, options.out_dir, outcome.missing_text);
  return kExitOk;
}

}  // namespace fleetsim
