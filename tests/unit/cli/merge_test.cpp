#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

constexpr std::string_view kMetrics =
    "cost.total_usd,cost.on_demand_usd,cost.spot_usd,gpu.utilization,gpu.provisioned_gpu_hours,"
    "sla.requests,sla.miss_ratio,sla.latency_ms.p50,sla.latency_ms.p99,sla.ttft_ms.p99,"
    "pods.pending_seconds.p99,nodes.launched,nodes.peak,jobs.completed,jobs.lost_gpu_hours,"
    "efficiency.lower_bound_usd,efficiency.gap_share";

// Shard `index` of 2 of a study of three points and seed 5, in folder `dir`: its results rows
// (point p costs 10 + p, misses 0.1 / (p + 1)) and its study record.
void shard(const Scratch& s, const std::string& dir, int index) {
  std::string text = "point,seed,surge," + std::string(kMetrics) + "\n";
  for (int p = index; p < 3; p += 2)
    text += std::to_string(p) + ",5," + std::to_string(2 * p) + "," + std::to_string(10 + p) +
            ",0,0,0,0,100," + std::to_string(0.1 / (p + 1)) + ",,,,,,,,,,\n";
  s.write(dir + "/results-shard-" + std::to_string(index) + "-of-2.csv", text);
  s.write(dir + "/results-shard-" + std::to_string(index) + "-of-2.study.json",
          "{\"study\": \"fnv1a64:00000000000000aa\", \"points\": 3, \"seeds\": [5], "
          "\"shard\": {\"index\": " +
              std::to_string(index) + ", \"count\": 2}}\n");
}

}  // namespace

// Issue 25, item 4: merge never makes half an answer without saying so.
TEST_CASE("fleetsim merge refuses a missing or repeated shard and --allow-partial says so",
          "[cli]") {
  Scratch s("merge-cli");
  shard(s, "a", 0);
  shard(s, "b", 1);
  const std::string a = (s.dir / "a").string(), b = (s.dir / "b").string();
  const std::string out = (s.dir / "out").string();
  Run whole = s.fleetsim("merge " + a + " " + b + " --out " + out);
  CHECK(whole.exit_code == 0);
  CHECK_THAT(whole.out, Catch::EndsWith("results: " + out + "/results.csv, frontier: " + out +
                                        "/frontier.csv\n"));

  Run missing = s.fleetsim("merge " + a + " --out " + out);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "error: merge: 1 of 3 runs missing: no shard 1 of 2 among the inputs; give every shard "
        "and finish each (rerun its sweep), or pass --allow-partial to merge what is there\n");
  Run repeated = s.fleetsim("merge " + a + " " + b + " " + a + " --out " + out);
  CHECK(repeated.exit_code == 2);
  CHECK(repeated.err == "error: " + a +
                            "/results-shard-0-of-2.csv: results: shard 0 of 2 is given "
                            "twice (also " +
                            a + "/results-shard-0-of-2.csv); give each shard once\n");

  Run partial = s.fleetsim("merge " + a + " --out " + out + " --allow-partial");
  CHECK(partial.exit_code == 0);
  CHECK_THAT(partial.out,
             Catch::StartsWith("PARTIAL: 1 of 3 runs missing: no shard 1 of 2 among the inputs; "
                               "the means and the frontier are of the runs there are\npoint  "));
  CHECK_THAT(partial.out, Catch::EndsWith("results: " + out + "/results.csv (partial), frontier: " +
                                          out + "/frontier-partial.csv\n"));
  CHECK(std::filesystem::exists(s.dir / "out/frontier-partial.csv"));
  CHECK_FALSE(std::filesystem::exists(s.dir / "out/frontier.csv"));  // the whole one's is gone

  // A shard that ran nothing yet: still said to be partial, with nothing to summarize.
  s.write("empty/results-shard-1-of-2.csv", "point,seed,surge," + std::string(kMetrics) + "\n");
  s.write("empty/results-shard-1-of-2.study.json",
          "{\"study\": \"fnv1a64:00000000000000aa\", \"points\": 3, \"seeds\": [5], "
          "\"shard\": {\"index\": 1, \"count\": 2}}\n");
  Run nothing = s.fleetsim("merge " + (s.dir / "empty").string() + " --out " +
                           (s.dir / "out-empty").string() + " --allow-partial");
  CHECK(nothing.exit_code == 0);
  CHECK(nothing.out == "PARTIAL: 3 of 3 runs missing: " + (s.dir / "empty").string() +
                           "/results-shard-1-of-2.csv lacks point 1 seed 5 (its sweep stopped "
                           "early); no shard 0 of 2 among the inputs; the means and the frontier "
                           "are of the runs there are\n");

  // --out that is a file, and an input that is not there: bad input, not an internal error.
  const std::string file = s.write("file", "x").string();
  Run onto_file = s.fleetsim("merge " + a + " " + b + " --out " + file);
  CHECK(onto_file.exit_code == 2);
  CHECK(onto_file.err == "error: " + file + ": --out: is not a folder\n");
  Run absent = s.fleetsim("merge " + (s.dir / "nowhere").string() + " --out " + out);
  CHECK(absent.exit_code == 2);
  CHECK(absent.err ==
        "error: " + (s.dir / "nowhere").string() + ": results: no such file or folder\n");
}
