// `fleetsim compare`: reports (or scenarios, run here over --seeds seeds) side by side. Reports of
// the same scenario name form one side, so a side's seeds give its mean and 95% interval.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/report/compare.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

void add(std::vector<CompareSide>& sides, nlohmann::json report) {
  const std::string name = report["scenario"].get<std::string>();
  auto side = std::find_if(sides.begin(), sides.end(),
                           [&](const CompareSide& s) { return s.name == name; });
  if (side == sides.end()) side = sides.insert(sides.end(), CompareSide{.name = name});
  side->reports.push_back(std::move(report));
}

}  // namespace

int compare_command(const CompareOptions& options) {
  std::vector<CompareSide> sides;
  for (const std::filesystem::path& input : options.inputs) {
    if (input.extension() == ".json") {
      add(sides, read_report_file(input, "report"));
      continue;
    }
    ScenarioConfig config = load_scenario(input, bundled_catalog_root(), {}, options.reading);
    print_warnings(config.warnings, options.warnings, std::cerr);
    const std::uint64_t first = config.seed;
    for (std::uint64_t i = 0; i < options.seeds; ++i) {
      config.seed = first + i;  // wraps past 2^64 - 1, as any seed may
      add(sides, nlohmann::json::parse(report_json_text(run(config))));
    }
  }
  std::cout << compare_table(sides);
  return kExitOk;
}

}  // namespace fleetsim
