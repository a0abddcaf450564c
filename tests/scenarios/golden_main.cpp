// Runs each example scenario twice: the two runs must be byte-identical (determinism) and match
// the committed golden report.json, events.jsonl and timeseries.csv. On a mismatch it prints the
// first differing line. `--update-golden` rewrites the golden files instead.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "example_scenarios.hpp"
#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/report/timeseries_writer.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fs = std::filesystem;
using namespace fleetsim;

namespace {

struct Outputs {
  std::string report, events, timeseries;
};

Outputs run_once(const ScenarioConfig& config) {
  std::ostringstream events, timeseries;
  EventWriter event_writer(events);
  TimeseriesWriter timeseries_writer(timeseries);
  const RunResult result =
      run(config, {.event_sinks = {&event_writer}, .timeseries_sinks = {&timeseries_writer}});
  return {report_json_text(result), events.str(), timeseries.str()};
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Empty when equal; else the first differing line of each, numbered.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    bool more_e = static_cast<bool>(std::getline(e, le));
    bool more_a = static_cast<bool>(std::getline(a, la));
    if (!more_e && !more_a) return {};
    if (!more_e) le = "<end of file>";
    if (!more_a) la = "<end of file>";
    if (le != la || !more_e || !more_a)
      return fmt::format("line {}:\n  expected: {}\n  actual:   {}", line, le, la);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool update = argc > 1 && std::string(argv[1]) == "--update-golden";
  const fs::path root = FLEETSIM_SOURCE_DIR;
  int failures = 0;
  for (const std::string& name : test::kExampleScenarios) {
    ScenarioConfig config =
        load_scenario(test::example_scenario_file(root, name), root / "instance-catalog");
    Outputs first = run_once(config);
    Outputs second = run_once(config);
    if (first.report != second.report || first.events != second.events ||
        first.timeseries != second.timeseries) {
      std::cerr << fmt::format("{}: two runs differ (non-determinism)\n{}\n", name,
                               first_difference(first.report + first.events + first.timeseries,
                                                second.report + second.events + second.timeseries));
      ++failures;
      continue;
    }
    const fs::path golden = root / "tests" / "scenarios" / name;
    if (update) {
      fs::create_directories(golden);
      std::ofstream(golden / "report.json", std::ios::binary) << first.report;
      std::ofstream(golden / "events.jsonl", std::ios::binary) << first.events;
      std::ofstream(golden / "timeseries.csv", std::ios::binary) << first.timeseries;
      std::cout << fmt::format("{}: golden files written\n", name);
      continue;
    }
    using Golden = std::pair<std::string, const std::string*>;
    for (auto [file, actual] :
         {Golden{"report.json", &first.report}, Golden{"events.jsonl", &first.events},
          Golden{"timeseries.csv", &first.timeseries}}) {
      std::string diff = first_difference(read_file(golden / file), *actual);
      if (diff.empty()) continue;
      std::cerr << fmt::format("{}: {} differs from the golden file, {}\n", name, file, diff);
      ++failures;
    }
    if (failures == 0) std::cout << fmt::format("{}: matches golden outputs\n", name);
  }
  if (failures > 0)
    std::cerr << "run `golden_scenarios --update-golden` if the change is intended\n";
  return failures == 0 ? 0 : 1;
}
