#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/report/run_recorder.hpp"
#include "fleetsim/report/summary.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
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
  if (!out) throw InputError(SourceLocation{.file = path.string()}, "--out", "cannot write this file");
  return out;
}

}  // namespace

int run_command(const RunOptions& options) {
  ScenarioConfig config = load_scenario(options.scenario, bundled_catalog_root());
  if (options.seed) config.seed = *options.seed;
  if (!options.quiet) print_warnings(config);

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) throw InputError(SourceLocation{.file = options.out_dir.string()}, "--out", ec.message());
  std::ofstream events = open_output(options.out_dir / "events.jsonl");
  std::ofstream timeseries = open_output(options.out_dir / "timeseries.csv");

  RunInfo info{.scenario = config.name, .seed = config.seed, .duration = config.duration,
               .report_interval = config.report_interval, .nodepools = {}};
  for (const NodePool& p : config.nodepools) info.nodepools.push_back(p.name);
  for (const ScriptedEvent& e : config.events)
    if (const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (const NodePool& p : apply->nodepools)
        if (std::find(info.nodepools.begin(), info.nodepools.end(), p.name) == info.nodepools.end())
          info.nodepools.push_back(p.name);
  RunRecorder recorder(info, &events, &timeseries);

  World world(config);
  world.add_sink(recorder);
  const bool show_progress = !options.quiet && isatty(STDERR_FILENO) != 0;
  if (show_progress) {
    world.set_progress(
        [&](SimTime now) {
          std::cerr << fmt::format("\r{}: {} / {} simulated", config.name, format_duration(now.time_since_epoch()),
                                   format_duration(config.duration))
                    << std::flush;
        },
        std::max(config.duration / 100, seconds(1)));
  }
  RunStats stats = world.run();
  if (show_progress) std::cerr << "\r\033[K";

  nlohmann::ordered_json report = recorder.report(stats.engine_events);
  std::ofstream report_file = open_output(options.out_dir / "report.json");
  report_file << report.dump(2) << '\n';
  events.close();
  timeseries.close();
  report_file.close();
  if (!events || !timeseries || !report_file)
    throw InputError(SourceLocation{.file = options.out_dir.string()}, "--out", "writing the outputs failed");
  if (!options.quiet) {
    std::cout << format_summary(report);
    std::cout << fmt::format("outputs: {}\n", options.out_dir.string());
  }
  return kExitOk;
}

int validate_command(const std::filesystem::path& scenario) {
  ScenarioConfig config = load_scenario(scenario, bundled_catalog_root());
  print_warnings(config);
  std::size_t jobs = config.job_sources.size();
  std::cout << fmt::format("{}: ok ({} NodePools, {} workloads, {} DaemonSets, {} job traces, {} scripted events, "
                           "{} instance types, {} warnings)\n",
                           scenario.string(), config.nodepools.size(), config.workloads.size(), config.daemonsets.size(),
                           jobs, config.events.size(), config.catalog->types().size(), config.warnings.size());
  return kExitOk;
}

}  // namespace fleetsim
