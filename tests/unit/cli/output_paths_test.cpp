// Every command's outputs are checked before it runs (issue 25, item 8): an output never
// overwrites the scenario, a manifest, a baseline or another output, and never replaces a
// folder, a FIFO or a device.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "cli_harness.hpp"

namespace fs = std::filesystem;
using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;
using fleetsim::test::slurp;

namespace {

const std::string kNotRegular =
    "is not a regular file (a FIFO, device or socket); fleetsim writes outputs only to regular "
    "files\n";

struct RunScratch : Scratch {
  fs::path scenario, pools, out;
  RunScratch() : Scratch("outputs-cli") {
    pools = write("pools.yaml", kG5Pool);
    scenario = write("scenario.yaml", "name: paths\nduration: 1h\nmanifests: [pools.yaml]\n");
    out = dir / "out";
  }
  Run run(const std::string& args) const {
    return fleetsim("run -q --warnings none " + scenario.string() + " --out " + out.string() + " " +
                    args);
  }
};

}  // namespace

TEST_CASE("run refuses outputs that are its inputs or each other, before it runs", "[cli]") {
  RunScratch s;
  const std::string scenario = s.scenario.string(), pools = s.pools.string();
  Run over_scenario = s.run("--metrics-out " + scenario);
  CHECK(over_scenario.exit_code == 2);
  CHECK(over_scenario.err == "error: " + scenario + ": --metrics-out: is the same file as the " +
                                 "input " + scenario +
                                 " (SCENARIO); an output must not overwrite an input\n");
  Run over_manifest = s.run("--metrics-out " + (s.dir / "x/../pools.yaml").string());
  CHECK(over_manifest.exit_code == 2);
  CHECK(over_manifest.err == "error: " + (s.dir / "x/../pools.yaml").string() +
                                 ": --metrics-out: is the same file as the input " + pools +
                                 " (a file the scenario reads); an output must not overwrite an "
                                 "input\n");
  CHECK(slurp(s.pools) == kG5Pool);
  Run out_is_scenario =
      s.fleetsim("run -q --warnings none " + scenario + " --out " + s.dir.string() +
                 " --metrics-out " + (s.dir / "report.json").string());
  CHECK(out_is_scenario.exit_code == 2);
  CHECK(out_is_scenario.err == "error: " + (s.dir / "report.json").string() +
                                   ": --metrics-out: is also the path of --out; each output needs "
                                   "a path of its own\n");
  CHECK_FALSE(fs::exists(s.out));  // nothing ran
}

TEST_CASE("run refuses a folder, FIFO or device as an output, and a file as --out", "[cli]") {
  RunScratch s;
  REQUIRE(::mkfifo((s.dir / "fifo").c_str(), 0600) == 0);
  Run fifo = s.run("--metrics-out " + (s.dir / "fifo").string());
  CHECK(fifo.exit_code == 2);
  CHECK(fifo.err == "error: " + (s.dir / "fifo").string() + ": --metrics-out: " + kNotRegular);
  CHECK(fs::is_fifo(s.dir / "fifo"));
  Run device = s.run("--metrics-out /dev/full");
  CHECK(device.exit_code == 2);
  CHECK(device.err == "error: /dev/full: --metrics-out: " + kNotRegular);
  CHECK(fs::is_character_file("/dev/full"));
  Run folder = s.run("--metrics-out " + s.dir.string());
  CHECK(folder.exit_code == 2);
  CHECK(folder.err == "error: " + s.dir.string() + ": --metrics-out: is a folder, not a file\n");
  Run nowhere = s.run("--metrics-out " + (s.dir / "none/run.om").string());
  CHECK(nowhere.exit_code == 2);
  CHECK(nowhere.err == "error: " + (s.dir / "none/run.om").string() + ": --metrics-out: its " +
                           "folder " + (s.dir / "none").string() + " does not exist\n");
  fs::create_directories(s.out / "report.json");
  Run report_folder = s.run("");
  CHECK(report_folder.exit_code == 2);
  CHECK(report_folder.err ==
        "error: " + (s.out / "report.json").string() + ": --out: is a folder, not a file\n");
  Run out_file =
      s.fleetsim("run -q --warnings none " + s.scenario.string() + " --out " + s.pools.string());
  CHECK(out_file.exit_code == 2);
  CHECK(out_file.err == "error: " + s.pools.string() + ": --out: is the same file as the input " +
                            s.pools.string() +
                            " (a file the scenario reads); an output must not overwrite an "
                            "input\n");
}

TEST_CASE("check refuses outputs over the baseline, the report or each other", "[cli]") {
  RunScratch s;
  const std::string out = s.out.string();
  REQUIRE(s.run("").exit_code == 0);
  const std::string report = (s.out / "report.json").string();
  const std::string baseline = s.write("baseline.json", slurp(s.out / "report.json")).string();
  const std::string check = "check --report " + report + " --baseline " + baseline;
  Run markdown = s.fleetsim(check + " --markdown " + baseline);
  CHECK(markdown.exit_code == 2);
  CHECK(markdown.err == "error: " + baseline + ": --markdown: is the same file as the input " +
                            baseline + " (--baseline); an output must not overwrite an input\n");
  Run junit = s.fleetsim(check + " --junit " + report);
  CHECK(junit.exit_code == 2);
  CHECK(junit.err == "error: " + report + ": --junit: is the same file as the input " + report +
                         " (--report); an output must not overwrite an input\n");
  const std::string md = (s.dir / "check.md").string();
  Run both = s.fleetsim(check + " --markdown " + md + " --junit " + md);
  CHECK(both.exit_code == 2);
  CHECK(both.err == "error: " + md +
                        ": --junit: is also the path of --markdown; each output needs a path of "
                        "its own\n");
  Run update = s.fleetsim("check --warnings none " + s.scenario.string() + " --baseline " +
                          s.pools.string() + " --update-baseline");
  CHECK(update.exit_code == 2);
  CHECK(update.err == "error: " + s.pools.string() + ": --baseline: is the same file as the " +
                          "input " + s.pools.string() +
                          " (a file the scenario reads); an output must not overwrite an input\n");
  CHECK(slurp(s.pools) == kG5Pool);
  // Appended to, it must not be an input either (the CI's own value is put back).
  const char* ci_summary = std::getenv("GITHUB_STEP_SUMMARY");
  const std::optional<std::string> saved =
      ci_summary ? std::optional<std::string>(ci_summary) : std::nullopt;
  ::setenv("GITHUB_STEP_SUMMARY", baseline.c_str(), 1);
  Run summary = s.fleetsim(check);
  if (saved)
    ::setenv("GITHUB_STEP_SUMMARY", saved->c_str(), 1);
  else
    ::unsetenv("GITHUB_STEP_SUMMARY");
  CHECK(summary.exit_code == 2);
  CHECK(summary.err == "error: " + baseline +
                           ": GITHUB_STEP_SUMMARY: is the same file as the input " + baseline +
                           " (--baseline); an output must not overwrite an input\n");
  Run device = s.fleetsim(check + " --junit /dev/full");
  CHECK(device.exit_code == 2);
  CHECK(device.err == "error: /dev/full: --junit: " + kNotRegular);
  CHECK(s.fleetsim(check + " --markdown " + md).exit_code == 0);
}

TEST_CASE("sweep and merge check --out before they run", "[cli]") {
  RunScratch s;
  const fs::path study =
      s.write("study.yaml", "scenario: scenario.yaml\nseeds: 1\nparameters: {}\n");
  Run file_out = s.fleetsim("sweep " + study.string() + " --out " + s.pools.string());
  CHECK(file_out.exit_code == 2);
  CHECK(file_out.err == "error: " + s.pools.string() + ": --out: is the same file as the input " +
                            s.pools.string() +
                            " (a file the scenario reads); an output must not overwrite an "
                            "input\n");
  fs::create_directories(s.dir / "sweep/frontier.csv");
  Run folder = s.fleetsim("sweep " + study.string() + " --out " + (s.dir / "sweep").string());
  CHECK(folder.exit_code == 2);
  CHECK(folder.err ==
        "error: " + (s.dir / "sweep/frontier.csv").string() + ": --out: is a folder, not a file\n");
  CHECK_FALSE(fs::exists(s.dir / "sweep/results.csv"));

  const fs::path shard = s.write("merged/results.csv", "point,seed\n0,1\n");
  Run over_shard = s.fleetsim("merge " + shard.string() + " --out " + (s.dir / "merged").string());
  CHECK(over_shard.exit_code == 2);
  CHECK(over_shard.err == "error: " + shard.string() + ": --out: is the same file as the input " +
                              shard.string() +
                              " (a shard's results); an output must not overwrite an input\n");
  Run merge_file = s.fleetsim("merge " + shard.string() + " --out " + s.pools.string());
  CHECK(merge_file.exit_code == 2);
  CHECK(merge_file.err == "error: " + s.pools.string() + ": --out: is not a folder\n");
}
