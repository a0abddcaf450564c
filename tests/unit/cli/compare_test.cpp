// `fleetsim compare` on the command line (issue 25, item 4): -j, --keep, --format, and the same
// run given twice refused.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;
using fleetsim::test::slurp;

namespace {

std::string source(const std::string& path) {
  return std::string(FLEETSIM_SOURCE_DIR) + "/" + path;
}

}  // namespace

TEST_CASE("fleetsim compare -j gives the same output as one thread, and --keep keeps the runs",
          "[cli]") {
  Scratch s("compare-j");
  const std::string scenario = source("scenarios/model-pair/scenario.yaml");
  const Run one = s.fleetsim("compare --seeds 3 " + scenario);
  const std::filesystem::path kept = s.dir / "kept";
  const Run two = s.fleetsim("compare --seeds 3 -j 2 --keep " + kept.string() + " " + scenario);
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  CHECK(two.out == one.out);
  // The kept reports (seeds 5, 6, 7: the scenario's and the next two) compare as the runs did.
  std::string reports = "compare";
  for (int seed : {5, 6, 7}) {
    const std::filesystem::path report = kept / fmt::format("model-pair-seed-{}.json", seed);
    CHECK(nlohmann::json::parse(slurp(report))["seed"] == seed);
    reports += fmt::format(" {}", report.string());
  }
  CHECK(s.fleetsim(reports).out == one.out);
}

TEST_CASE("fleetsim compare refuses the same run given twice", "[cli]") {
  Scratch s("compare-twice");
  const std::string report = source("tests/scenarios/consolidation/when-empty/report.json");
  const Run twice = s.fleetsim("compare " + report + " " + report);
  CHECK(twice.exit_code == 2);
  CHECK(twice.out.empty());
  CHECK(twice.err == "error: " + report +
                         ": inputs: scenario consolidation-when-empty at seed 3 is already given "
                         "by " +
                         report + "; the same run twice would count as two seeds\n");
}

TEST_CASE("fleetsim compare --format csv, json and markdown", "[cli]") {
  Scratch s("compare-format");
  const std::string reports = source("tests/scenarios/consolidation/when-empty/report.json") + " " +
                              source("tests/scenarios/consolidation/balanced/report.json");
  const Run csv = s.fleetsim("compare --format csv " + reports);
  CHECK(csv.exit_code == 0);
  CHECK_THAT(csv.out,
             Catch::StartsWith("metric,side,seeds,mean,half_width,change\n"
                               "cost.total_usd,consolidation-when-empty,1,155.34,,\n"
                               "cost.total_usd,consolidation-balanced,1,132.43,,-14.75%\n"));
  const Run json = s.fleetsim("compare --format json " + reports);
  CHECK(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["metrics"][0]["values"][1]["mean"] == 132.43);
  const Run md = s.fleetsim("compare --format markdown " + reports);
  CHECK_THAT(md.out, Catch::Contains("| cost.total_usd | 155.34 | 132.43 | -14.75% |\n"));
  CHECK(s.fleetsim("compare --format yaml " + reports).exit_code == 2);
}
