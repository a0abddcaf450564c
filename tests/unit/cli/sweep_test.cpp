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

// Issue 25, item 8: a sweep shows the scenario's warnings, once for all its points, as run does.
TEST_CASE("fleetsim sweep prints the scenario's warnings once", "[cli]") {
  Scratch s("sweep-warnings-cli");
  s.write("pools.yaml", fleetsim::test::kG5Pool);
  s.write("job.yaml", R"(apiVersion: batch/v1
kind: Job
metadata: {name: train, annotations: {fleetsim.io/duration: 5m}}
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          resources: {requests: {cpu: 1, nvidia.com/gpu: 1}}
)");
  s.write("scenario.yaml", "name: w\nduration: 10m\nmanifests: [pools.yaml, job.yaml]\n");
  const std::string study =
      s.write("study.yaml",
              "scenario: scenario.yaml\nparameters:\n  length:\n    target: duration\n"
              "    values: [10m, 20m]\n")
          .string();
  Run sweep = s.fleetsim("sweep " + study + " --progress none --out " + (s.dir / "out").string());
  CHECK(sweep.exit_code == 0);
  CHECK(sweep.err ==
        "warning: " + (s.dir / "job.yaml").string() +
            ":5:3: Job.spec.backoffLimit: not modelled; ignored [unmodelled-field]\nwarning: " +
            (s.dir / "pools.yaml").string() +
            ":8:74: NodePool.spec.template.spec.nodeClassRef.name: no EC2NodeClass "
            "named \"default\"; using defaults [missing-node-class]\n");
  Run quiet = s.fleetsim("sweep " + study + " --out " + (s.dir / "out2").string() +
                         " --progress none --suppress unmodelled-field,missing-node-class");
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
}
