#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;
using fleetsim::test::slurp;

// `fleetsim check` as CI runs it (issue 10, item 1): a golden scenario passes against its own
// baseline, a costlier NodePool fails the gate, and --update-baseline makes it pass again.
TEST_CASE("fleetsim check gates a changed NodePool against the baseline", "[cli]") {
  Scratch s("check-cli");
  const auto dir = s.dir / "llm";
  std::filesystem::copy(std::filesystem::path(FLEETSIM_SOURCE_DIR) / "scenarios/llm-inference", dir,
                        std::filesystem::copy_options::recursive);
  const std::string scenario = (dir / "scenario.yaml").string();
  const std::string baseline = (s.dir / "baseline.json").string();
  Run update = s.fleetsim("check " + scenario + " --baseline " + baseline + " --update-baseline");
  CHECK(update.exit_code == 0);
  CHECK(update.out == baseline + ": baseline updated\n");
  CHECK_THAT(slurp(baseline), Catch::Contains("\"manifests/nodepool.yaml\": \"fnv1a64:"));
  Run same = s.fleetsim("check " + scenario + " --baseline " + baseline);
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::EndsWith("fleetsim check: every metric within its tolerance\n"));

  // Only 4xlarge nodes: the same work at a higher price.
  std::string pool = slurp(dir / "manifests/nodepool.yaml");
  const std::string family = "          values: [\"g5\"]\n";
  pool.insert(
      pool.find(family) + family.size(),
      "        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [4xlarge]}\n");
  s.write("llm/manifests/nodepool.yaml", pool);
  const std::string junit = (s.dir / "check.xml").string();
  Run costlier = s.fleetsim("check " + scenario + " --baseline " + baseline + " --junit " + junit);
  CHECK(costlier.exit_code == 1);
  CHECK_THAT(costlier.out, Catch::Contains("+2%  REGRESSION\n"));
  CHECK_THAT(costlier.out,
             Catch::EndsWith("fleetsim check: 1 metric failed; inputs changed since the baseline "
                             "(manifests/nodepool.yaml), so differences may come from them rather "
                             "than from fleetsim's behaviour\n"));
  CHECK_THAT(slurp(junit), Catch::Contains("failures=\"1\""));
  CHECK(s.fleetsim("check " + scenario + " --baseline " + baseline + " --update-baseline")
            .exit_code == 0);
  CHECK(s.fleetsim("check " + scenario + " --baseline " + baseline).exit_code == 0);

  // A scenario's own gate, and a report checked without running.
  s.write("llm/scenario.yaml",
          slurp(dir / "scenario.yaml") + "gates: {sla.miss_ratio: {max: 0.001}}\n");
  Run gated = s.fleetsim("check " + scenario + " --baseline " + baseline);
  CHECK(gated.exit_code == 1);
  CHECK_THAT(gated.out, Catch::Contains("gate sla.miss_ratio"));
  CHECK_THAT(gated.out, Catch::Contains("≤ 0.001  FAILED\n"));
  Run report = s.fleetsim("check --report " + baseline + " --baseline " + baseline);
  CHECK(report.exit_code == 0);

  Run not_report = s.fleetsim("check --report " + scenario + " --baseline " + baseline);
  CHECK(not_report.exit_code == 2);
  CHECK(not_report.err == "error: " + scenario + ": --report: not a fleetsim report.json\n");
  CHECK(s.fleetsim("check --baseline " + baseline).exit_code == 2);
}

// `fleetsim compare` runs scenarios over seeds, and names what is not a report.
TEST_CASE("fleetsim compare: scenarios over seeds, and a bad report", "[cli]") {
  Scratch s("compare-cli");
  const std::string scenario =
      std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/model-pair/scenario.yaml";
  Run three = s.fleetsim("compare --seeds 3 " + scenario);
  CHECK(three.exit_code == 0);
  // The columns are as wide as their widest cell, so the header's spacing follows the numbers.
  CHECK_THAT(three.out, Catch::Matches("metric +model-pair \\(n=3\\)\n[^]*"));
  CHECK_THAT(three.out, Catch::Contains("cost.total_usd "));
  CHECK_THAT(three.out, Catch::Contains(" ± "));
  const auto bad = s.write("bad.json", "{\"cost\": 1}\n");
  Run not_report = s.fleetsim("compare " + bad.string());
  CHECK(not_report.exit_code == 2);
  CHECK(not_report.err == "error: " + bad.string() + ": report: not a fleetsim report.json\n");
}
