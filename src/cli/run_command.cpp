#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/report/summary.hpp"
#include "fleetsim/report/timeseries_writer.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/traffic/traffic_replay.hpp"
#include "fleetsim/workload/job_trace.hpp"
#include "fleetsim/world/world.hpp"

namespace fleetsim {

namespace {

// Each unmodelled field once, so a user sees what fleetsim ignored.
void print_warnings(const ScenarioConfig& config) {
  for (const Warning& w : config.warnings)
    std::cerr << fmt::format("warning: {}: {}: {}\n", w.where.to_string(), w.field, w.message);
}

std::ofstream open_output(const std::filesystem::path& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw InputError(SourceLocation{.file = path.string()}, "--out", "cannot write this file");
  return out;
}

}  // namespace

int run_command(const RunCommandOptions& options) {
  ScenarioConfig config = load_scenario(options.scenario, bundled_catalog_root());
  if (options.seed) config.seed = *options.seed;
  if (!options.quiet) print_warnings(config);

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) throw InputError(SourceLocation{.file = options.out_dir.string()}, "--out", ec.message());
  std::ofstream events = open_output(options.out_dir / "events.jsonl");
  std::ofstream timeseries = open_output(options.out_dir / "timeseries.csv");
  EventWriter event_writer(events);
  TimeseriesWriter timeseries_writer(timeseries);

  const bool show_progress = !options.quiet && isatty(STDERR_FILENO) != 0;
  RunOptions run_options{.event_sinks = {&event_writer}, .timeseries_sinks = {&timeseries_writer}};
  if (show_progress) {
    run_options.progress = [&](SimTime now) {
      std::cerr << fmt::format("\r{}: {} / {} simulated", config.name,
                               format_duration(now.time_since_epoch()),
                               format_duration(config.duration))
                << std::flush;
    };
  }
  const RunResult result = run(config, run_options);
  if (show_progress) std::cerr << "\r\033[K";

  std::ofstream report_file = open_output(options.out_dir / "report.json");
  report_file << report_json_text(result);
  events.close();
  timeseries.close();
  report_file.close();
  if (!events || !timeseries || !report_file)
    throw InputError(SourceLocation{.file = options.out_dir.string()}, "--out",
                     "writing the outputs failed");
  if (!options.quiet) {
    std::cout << format_summary(result);
    std::cout << fmt::format("outputs: {}\n", options.out_dir.string());
  }
  return kExitOk;
}

int validate_command(const std::filesystem::path& scenario) {
  ScenarioConfig config = load_scenario(scenario, bundled_catalog_root());
  // A run streams its traces; validation reads them through so a bad row surfaces now.
  for (const JobSource& source : config.job_sources) {
    JobTraceReader reader(source.trace);
    while (reader.next()) {
    }
  }
  for (const ServiceConfig& service : config.services)
    if (const auto* replay = std::get_if<ReplayConfig>(&service.traffic))
      scan_request_trace(replay->trace);
  World world(config);  // its construction runs the checks that need the NodePools as solved
  print_warnings(config);
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
