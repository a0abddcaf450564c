#include <catch2/catch.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

// `fleetsim lint` prints each finding with its place, what happens and the fix, and exits 1 on a
// finding at or above --fail-on (issue 12, item 8).
TEST_CASE("fleetsim lint: findings, fixes and the exit code", "[cli]") {
  Scratch s("lint-cli");
  s.write("manifests.yaml", std::string(fleetsim::test::kG5Pool) + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  replicas: 1
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      tolerations: [{key: dedicated, operator: Exists}]
      containers:
        - {name: c, resources: {requests: {nvidia.com/gpu: 2}}}
)");
  const auto file =
      s.write("scenario.yaml", "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n");
  const std::string manifests = (s.dir / "manifests.yaml").string();
  Run info = s.fleetsim("lint " + file.string());
  CHECK(info.exit_code == 0);  // an info finding, below the default --fail-on warning
  CHECK(info.out == manifests +
                        ":16:18: info [unneeded-toleration] Deployment default/llm: it tolerates "
                        "dedicated, which no NodePool's taints include: the toleration changes "
                        "nothing\n    fix: drop the toleration, or taint the NodePool meant for "
                        "these pods\n" +
                        file.string() + ": 1 finding (0 warnings, 1 info)\n");
  CHECK(s.fleetsim("lint --fail-on info " + file.string()).exit_code == 1);
  s.write("scenario.yaml",
          "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
          "events: [{at: 10m, apply: budget.yaml}]\n");
  s.write("budget.yaml",
          std::string(fleetsim::test::kG5Pool) + "  disruption: {budgets: [{nodes: \"0%\"}]}\n");
  Run warning = s.fleetsim("lint " + file.string());
  CHECK(warning.exit_code == 1);
  CHECK_THAT(warning.out, Catch::Contains("budget.yaml:4:9: warning [budget-blocks-forever] "
                                          "NodePool gpu: a budget of 0% nodes"));
  CHECK(s.fleetsim("lint --fail-on never " + file.string()).exit_code == 0);
  CHECK(s.fleetsim("lint --fail-on sometimes " + file.string()).exit_code == 2);
  CHECK_THAT(s.fleetsim("lint --help").out, Catch::Contains("keda-average-query (warning): "));
}
