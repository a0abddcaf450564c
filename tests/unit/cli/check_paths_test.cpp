#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;
using fleetsim::test::slurp;

namespace {

const std::string kGolden =
    std::string(FLEETSIM_SOURCE_DIR) + "/tests/scenarios/gpu-training/report.json";

}  // namespace

// Issue 25, items 4 and 8: what check is asked to hold a report to must be there, and be a
// number; else it is bad input (exit 2), never a pass.
TEST_CASE("fleetsim check: a path in neither report or not a number is an error", "[cli]") {
  Scratch s("check-paths-cli");
  const std::string against = " --baseline " + kGolden;
  const std::string typo = s.write("typo.yaml", "sla.miss_rato: {max_rise: 1%}\n").string();
  Run misspelt = s.fleetsim("check --report " + kGolden + against + " --tolerances " + typo);
  CHECK(misspelt.exit_code == 2);
  CHECK(misspelt.err == "error: " + typo +
                            ":1:1: sla.miss_rato: in neither report, so nothing checks it; did you "
                            "mean \"sla.miss_ratio\"?\n");
  const std::string group = s.write("group.yaml", "cost.by_nodepool: {max_rise: 1%}\n").string();
  Run grouped = s.fleetsim("check --report " + kGolden + against + " --tolerances " + group);
  CHECK(grouped.exit_code == 2);
  CHECK(grouped.err == "error: " + kGolden +
                           ": cost.by_nodepool: is a group of metrics, not a number, so it cannot "
                           "be checked (named at " +
                           group + ":1:1)\n");

  // A report whose cost is a string passed before, as "not in both reports".
  std::string report = slurp(kGolden);
  const std::size_t cost = report.find("\"total_usd\": ");
  report.replace(cost, report.find(',', cost) - cost, "\"total_usd\": \"181\"");
  const std::string stringy = s.write("stringy.json", report).string();
  Run text = s.fleetsim("check --report " + stringy + against);
  CHECK(text.exit_code == 2);
  CHECK(text.err == "error: " + stringy +
                        ": cost.total_usd: is a string (\"181\"), not a number, so it cannot be "
                        "checked\n");

  // A gate on a path in neither report.
  s.write("pools.yaml", kG5Pool);
  const std::string scenario =
      s.write("scenario.yaml",
              "name: g\nduration: 10m\nmanifests: [pools.yaml]\ngates: {sla.miss_rato: {max: 1}}\n")
          .string();
  Run gate = s.fleetsim("check " + scenario + against + " --warnings none --progress none");
  CHECK(gate.exit_code == 2);
  CHECK(gate.err == "error: " + scenario +
                        ":4:9: sla.miss_rato: in neither report, so nothing checks it; did you "
                        "mean \"sla.miss_ratio\"?\n");
}

TEST_CASE("fleetsim check: a missing baseline says how to make one and a folder is not a report",
          "[cli]") {
  Scratch s("check-files-cli");
  const std::string missing = (s.dir / "ci/baseline.json").string();
  Run none = s.fleetsim("check --report " + kGolden + " --baseline " + missing);
  CHECK(none.exit_code == 2);
  CHECK(none.err == "error: " + missing +
                        ": --baseline: no such file; to make this run the baseline, rerun with "
                        "--update-baseline and commit the file it writes\n");
  Run folder = s.fleetsim("check --report " + s.dir.string() + " --baseline " + kGolden);
  CHECK(folder.exit_code == 2);
  CHECK(folder.err == "error: " + s.dir.string() + ": --report: a folder, not a report.json\n");
  Run onto = s.fleetsim("check --report " + kGolden + " --baseline " + s.dir.string());
  CHECK(onto.exit_code == 2);
  CHECK(onto.err == "error: " + s.dir.string() + ": --baseline: a folder, not a report.json\n");
  Run update = s.fleetsim("check --report " + kGolden + " --baseline " + s.dir.string() +
                          " --update-baseline");
  CHECK(update.exit_code == 2);
  CHECK(update.err == "error: " + s.dir.string() + ": --baseline: is a folder, not a file\n");
}
