#include <catch2/catch.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;
using fleetsim::test::slurp;

// The bundled study run whole, and as the example Indexed Job runs it: one process per shard
// with $JOB_COMPLETION_INDEX, then merged (issue 10, item 3).
TEST_CASE("fleetsim sweep: shards by completion index merge into the unsharded results", "[cli]") {
  Scratch s("sweep-cli");
  const std::string study =
      std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/studies/model-pair-consolidation.yaml";
  const std::string whole = (s.dir / "whole").string();
  Run all = s.fleetsim("sweep " + study + " --out " + whole + " -j 2");
  CHECK(all.exit_code == 0);
  CHECK_THAT(all.out, Catch::StartsWith("point  consolidate_after  surge_factor  seeds  "));
  CHECK_THAT(all.out, Catch::EndsWith("frontier: " + whole + "/frontier.csv\n"));
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    const std::string out = (s.dir / ("shard-" + std::to_string(i))).string();
    Run shard = s.fleetsim("sweep " + study + " --out " + out + " --shard auto/3");
    CHECK(shard.exit_code == 2);  // without $JOB_COMPLETION_INDEX
    const std::string cmd = "JOB_COMPLETION_INDEX=" + std::to_string(i) + " " +
                            std::string(FLEETSIM_BINARY) + " sweep " + study + " --out " + out +
                            " --shard auto/3 >/dev/null";
    CHECK(std::system(cmd.c_str()) == 0);
    shards += " " + out;
  }
  Run merge = s.fleetsim("merge" + shards + " --out " + (s.dir / "merged").string());
  CHECK(merge.exit_code == 0);
  CHECK(slurp(s.dir / "merged/results.csv") == slurp(s.dir / "whole/results.csv"));
  CHECK(slurp(s.dir / "merged/frontier.csv") == slurp(s.dir / "whole/frontier.csv"));

  Run bad = s.fleetsim("sweep " + study + " --out " + whole + " --shard 3/3");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "error: --shard: expected I/N with 0 <= I < N (or auto/N), got \"3/3\"\n");
}
