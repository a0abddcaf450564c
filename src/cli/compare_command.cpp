// `fleetsim compare`: reports (or scenarios, run here over --seeds seeds) side by side. Reports of
// the same scenario name form one side, so a side's seeds give its mean and 95% interval.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/parallel_for.hpp"
#include "fleetsim/core/version.hpp"
#include "fleetsim/report/compare.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/input_digest.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

// One report to compare: read from a file, or a scenario's run at one seed.
struct Entry {
  std::filesystem::path input;  // the file it comes from
  std::string scenario;
  std::uint64_t seed = 0;
  std::size_t config = 0;  // scenarios only: index into the loaded configs
  nlohmann::json report;   // read files at once; runs once they ran
};

// A run counted twice would pass for two seeds and shrink the interval: refuse it, be it the
// same report.json given twice or a scenario whose seeds overlap another input's.
void refuse_repeats(const std::vector<Entry>& entries) {
  std::map<std::pair<std::string, std::uint64_t>, const Entry*> seen;
  for (const Entry& e : entries) {
    auto [it, fresh] = seen.try_emplace({e.scenario, e.seed}, &e);
    if (fresh) continue;
    throw InputError(SourceLocation{.file = e.input.string()}, "inputs",
                     fmt::format("scenario {} at seed {} is already given by {}; the same run "
                                 "twice would count as two seeds",
                                 e.scenario, e.seed, it->second->input.string()));
  }
}

CompareFormat format_of(const std::string& name) {
  if (name == "csv") return CompareFormat::Csv;
  if (name == "json") return CompareFormat::Json;
  if (name == "markdown") return CompareFormat::Markdown;
  return CompareFormat::Table;
}

}  // namespace

int compare_command(const CompareOptions& options) {
  std::vector<Entry> entries;
  std::vector<ScenarioConfig> configs;
  for (const std::filesystem::path& input : options.inputs) {
    if (input.extension() == ".json") {
      nlohmann::json report = read_report_file(input, "report");
      const nlohmann::json& seed = report["seed"];
      entries.push_back({.input = input,
                         .scenario = report["scenario"].get<std::string>(),
                         .seed = seed.is_number_unsigned() ? seed.get<std::uint64_t>() : 0,
                         .report = std::move(report)});
      continue;
    }
    configs.push_back(load_scenario(input, bundled_catalog_root(), {}, options.reading));
    print_warnings(configs.back().warnings, options.warnings, std::cerr);
    for (std::uint64_t i = 0; i < options.seeds; ++i) {
      entries.push_back({.input = input,
                         .scenario = configs.back().name,
                         .seed = configs.back().seed + i,  // wraps past 2^64 - 1, as any seed may
                         .config = configs.size() - 1});
    }
  }
  refuse_repeats(entries);
  if (options.keep) {
    std::error_code ec;
    std::filesystem::create_directories(*options.keep, ec);
    if (ec)
      throw InputError(SourceLocation{.file = options.keep->string()}, "--keep", ec.message());
  }

  std::vector<std::size_t> runs;  // entries that are scenario runs, in input and seed order
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].report.is_null()) runs.push_back(i);
  // Each run fills its own entry, so the output does not depend on -j.
  parallel_for(runs.size(), options.jobs, [&](std::size_t k) {
    Entry& e = entries[runs[k]];
    ScenarioConfig config = configs[e.config];
    config.seed = e.seed;
    const RunResult result = run(config);
    if (options.keep) {
      const ReportProvenance provenance{.version = std::string(kFleetsimVersion),
                                        .inputs = input_digests(config)};
      std::string file = fmt::format("{}-seed-{}.json", e.scenario, e.seed);
      std::replace(file.begin(), file.end(), '/', '_');  // a name is not a path
      write_file_atomically(*options.keep / file, "--keep", report_json_text(result, &provenance));
    }
    e.report = nlohmann::json::parse(report_json_text(result));
  });

  std::vector<CompareSide> sides;
  for (Entry& e : entries) {
    auto side = std::find_if(sides.begin(), sides.end(),
                             [&](const CompareSide& s) { return s.name == e.scenario; });
    if (side == sides.end()) side = sides.insert(sides.end(), CompareSide{.name = e.scenario});
    side->reports.push_back(std::move(e.report));
  }
  std::cout << format_compare(sides, format_of(options.format));
  return kExitOk;
}

}  // namespace fleetsim
