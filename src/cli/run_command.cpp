#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/cli/output_paths.hpp"
#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/output_path.hpp"
#include "fleetsim/core/stop_flag.hpp"
#include "fleetsim/core/version.hpp"
#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/openmetrics_writer.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/report/summary.hpp"
#include "fleetsim/report/timeseries_writer.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/input_digest.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

// SIGINT and SIGTERM ask the run to stop (core/stop_flag.hpp). A second one ends the process at
// once, as if no handler were set: a stuck run can still be killed.
extern "C" void on_stop_signal(int sig) {
  if (stop_signal() != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  request_stop(sig);
}

// The run's outputs, written to temporaries beside them and renamed into place only when the run
// has succeeded: a failed or interrupted run leaves the previous outputs whole, and no half file.
class OutputFiles {
 public:
  explicit OutputFiles(std::filesystem::path dir) : dir_(std::move(dir)) {}
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles() {
    if (committed_) return;
    std::error_code ec;
    for (const File& f : files_) std::filesystem::remove(f.temp, ec);
  }

  std::ofstream& open(const std::string& name) {
    File f{.final = dir_ / name,
           .temp = dir_ / fmt::format(".{}.{}.tmp", name, static_cast<long>(::getpid())),
           .stream = std::make_unique<std::ofstream>()};
    f.stream->open(f.temp, std::ios::binary | std::ios::trunc);
    if (!*f.stream)
      throw InputError(SourceLocation{.file = f.temp.string()}, "--out", "cannot write this file");
    files_.push_back(std::move(f));
    return *files_.back().stream;
  }

  void commit() {
    for (File& f : files_) {
      f.stream->close();
      if (!*f.stream)
        throw InputError(SourceLocation{.file = f.temp.string()}, "--out",
                         "writing the output failed");
    }
    // What is at a final path may have changed since the check before the run: replace only
    // regular files, and check them all before the first rename.
    for (const File& f : files_)
      if (auto why = not_replaceable(f.final))
        throw InputError(SourceLocation{.file = f.final.string()}, "--out", *why);
    for (const File& f : files_) {
      std::error_code ec;
      std::filesystem::rename(f.temp, f.final, ec);
      if (ec) throw InputError(SourceLocation{.file = f.final.string()}, "--out", ec.message());
    }
    committed_ = true;
  }

 private:
  struct File {
    std::filesystem::path final;
    std::filesystem::path temp;
    std::unique_ptr<std::ofstream> stream;
  };
  std::filesystem::path dir_;
  std::vector<File> files_;
  bool committed_ = false;
};

}  // namespace

int run_command(const RunCommandOptions& options) {
  ScenarioConfig config =
      load_scenario(options.scenario, bundled_catalog_root(), {}, options.reading);
  if (options.seed) config.seed = *options.seed;
  print_warnings(config.warnings, options.warnings, std::cerr);
  check_run_outputs(options, config);

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) throw InputError(SourceLocation{.file = options.out_dir.string()}, "--out", ec.message());
  OutputFiles outputs(options.out_dir);
  EventWriter event_writer(outputs.open("events.jsonl"));
  TimeseriesWriter timeseries_writer(outputs.open("timeseries.csv"));

  // SIGINT and SIGTERM stop the run between events; the outputs are then left as they were.
  clear_stop_request();
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  RunProgress progress(options.quiet ? ProgressStyle::None : progress_style(options.progress),
                       config.name, config.duration, std::cerr);
  RunOptions run_options{.event_sinks = {&event_writer}, .timeseries_sinks = {&timeseries_writer}};
  std::unique_ptr<OpenMetricsWriter> metrics;
  if (options.metrics_out) {
    metrics = std::make_unique<OpenMetricsWriter>(options.metrics_out->string() + ".spool",
                                                  config.start_unix_s, config.nodepools,
                                                  *config.catalog, config.management_fee_by_type);
    run_options.event_sinks.push_back(metrics.get());
    run_options.metric_sinks.push_back(metrics.get());
  }
  if (progress.style() != ProgressStyle::None)
    run_options.progress = [&](SimTime now) { progress.update(now); };
  RunResult result;
  try {
    result = run(config, run_options);
  } catch (const StopRequested& stop) {
    progress.abandon();
    std::cerr << fmt::format("stopped by signal {}; the outputs in {} are unchanged\n", stop.signal,
                             options.out_dir.string());
    return 128 + stop.signal;
  }
  progress.finish();
  if (progress.style() != ProgressStyle::None) {
    std::cerr << fmt::format("efficiency bounds: fluid {:.3f} s, packing {:.3f} s\n",
                             result.efficiency.fluid_seconds, result.efficiency.packing_seconds);
  }

  const ReportProvenance provenance{.version = std::string(kFleetsimVersion),
                                    .inputs = input_digests(config)};
  outputs.open("report.json") << report_json_text(result, &provenance);
  if (metrics) {
    write_file_atomically(*options.metrics_out, "--metrics-out",
                          [&](std::ostream& out) { metrics->finish(out); });
  }
  outputs.commit();
  if (!options.quiet) {
    std::cout << format_summary(result);
    std::cout << fmt::format("outputs: {}\n", options.out_dir.string());
  }
  return kExitOk;
}

int validate_command(const std::filesystem::path& scenario, WarningDetail warnings,
                     const ReadOptions& reading) {
  // Loading runs every check a run would (validate_scenario): traces read through, NodePools
  // solved.
  const ScenarioConfig config = load_scenario(scenario, bundled_catalog_root(), {}, reading);
  print_warnings(config.warnings, warnings, std::cerr);
  std::size_t jobs = config.job_sources.size();
  std::cout << fmt::format(
      "{}: ok ({} NodePools, {} workloads, {} DaemonSets, {} services, {} autoscalers, "
      "{} job traces, {} scripted events, {} instance types, {} warnings)\n",
      scenario.string(), config.nodepools.size(), config.workloads.size(), config.daemonsets.size(),
      config.services.size(), config.hpas.size() + config.scaled_objects.size(), jobs,
      config.events.size(), config.catalog->types().size(), config.warnings.size());
  return kExitOk;
}

}  // namespace fleetsim
