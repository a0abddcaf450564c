// Paths that are folders, FIFOs or missing are bad input (exit 2) with a message naming them,
// never a filesystem exception that reads as an internal error (exit 3) (issue 25, item 8).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

namespace fs = std::filesystem;
using fleetsim::test::Run;
using fleetsim::test::Scratch;

TEST_CASE("a report, shard or events path that is no regular file exits 2", "[cli]") {
  Scratch s("fs-errors-cli");
  const std::string folder = (s.dir / "folder.json").string();
  fs::create_directories(folder);
  Run report = s.fleetsim("check --report " + folder + " --baseline " + folder);
  CHECK(report.exit_code == 2);
  CHECK(report.err == "error: " + folder + ": --report: a folder, not a report.json\n");
  Run compare = s.fleetsim("compare " + folder);
  CHECK(compare.exit_code == 2);
  CHECK(compare.err == "error: " + folder + ": report: is a directory, not a file\n");

  const std::string missing = (s.dir / "none.csv").string();
  Run merge = s.fleetsim("merge " + missing + " --out " + (s.dir / "merged").string());
  CHECK(merge.exit_code == 2);
  CHECK(merge.err == "error: " + missing + ": results: no such file or folder\n");
  // The inputs are checked first (merge_test and output_paths_test hold --out's own cases).
  const std::string file = s.write("file", "x").string();
  Run merge_into_file = s.fleetsim("merge " + folder + " --out " + (s.dir / "file/out").string());
  CHECK(merge_into_file.exit_code == 2);
  CHECK(merge_into_file.err ==
        "error: " + folder + ": results: no results-shard-I-of-N.csv in this folder\n");

  fs::create_directories(s.dir / "run");
  REQUIRE(::mkfifo((s.dir / "run/events.jsonl").c_str(), 0600) == 0);
  Run explain = s.fleetsim("explain " + (s.dir / "run").string() + " --pod p");
  CHECK(explain.exit_code == 2);
  CHECK(explain.err == "error: " + (s.dir / "run/events.jsonl").string() +
                           ": OUT_DIR: not a regular file (a FIFO, device or socket)\n");
}
