// `lint: {accept: [...]}` and `fleetsim lint --sarif` (issue 25, item 6): accepted findings are
// counted, not printed, and never fail --fail-on; an unknown rule is an error; an entry that
// matches nothing gets a note; the SARIF file marks accepted findings suppressed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

// manifests.yaml:16:18 has an unneeded toleration (info), budget.yaml:4:9 a budget that blocks
// disruption forever (warning), applied at 10m.
void write_inputs(const Scratch& s) {
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
  s.write("budget.yaml",
          std::string(fleetsim::test::kG5Pool) + "  disruption: {budgets: [{nodes: \"0%\"}]}\n");
}

const std::string kHead =
    "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
    "events: [{at: 10m, apply: budget.yaml}]\n";

}  // namespace

TEST_CASE("lint.accept: accepted findings are counted, never fail, and stale entries get a note",
          "[cli][lint]") {
  Scratch s("lint-accept");
  write_inputs(s);
  const std::string scenario =
      s.write("scenario.yaml", kHead +
                                   "lint:\n  accept:\n"
                                   "    - budget-blocks-forever@budget.yaml:4\n"
                                   "    - unneeded-toleration@./manifests.yaml\n"
                                   "    - spot-only-jobs\n"
                                   "    - untolerated-taint@budget.yaml\n")
          .string();
  const Run r = s.fleetsim("lint --fail-on info " + scenario);
  CHECK(r.exit_code == 0);
  CHECK(r.out == scenario +
                     ":9:7: note: lint.accept \"spot-only-jobs\" matches no finding (a stale "
                     "acceptance); remove it\n" +
                     scenario +
                     ":10:7: note: lint.accept \"untolerated-taint@budget.yaml\" matches no "
                     "finding (a stale acceptance); remove it\n" +
                     scenario + ": no findings\n" + scenario +
                     ": 2 findings accepted by lint.accept\n");

  // Another line of the file: the warning is reported again, and fails.
  s.write("scenario.yaml", kHead + "lint: {accept: [budget-blocks-forever@budget.yaml:5]}\n");
  const Run other_line = s.fleetsim("lint " + scenario);
  CHECK(other_line.exit_code == 1);
  CHECK_THAT(other_line.out,
             Catch::Contains((s.dir / "budget.yaml").string() +
                             ":4:9: warning [budget-blocks-forever] NodePool gpu: a budget"));
  CHECK_THAT(other_line.out, Catch::EndsWith(scenario + ": 2 findings (1 warning, 1 info)\n" +
                                             scenario + ": 0 findings accepted by lint.accept\n"));
}

TEST_CASE("lint.accept: an unknown rule or a malformed entry is an error at its place",
          "[cli][lint]") {
  Scratch s("lint-accept-bad");
  write_inputs(s);
  const std::string scenario =
      s.write("scenario.yaml", kHead + "lint: {accept: [budget-blocks-forevr@budget.yaml]}\n")
          .string();
  const Run typo = s.fleetsim("lint " + scenario);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err,
             Catch::StartsWith("error: " + scenario +
                               ":5:17: lint.accept[0]: unknown lint rule "
                               "\"budget-blocks-forevr\"; did you mean \"budget-blocks-forever\"? "
                               "(the rules: keda-average-query, "));
  CHECK(s.fleetsim("validate " + scenario).exit_code == 2);  // every command reads the key

  s.write("scenario.yaml", kHead + "lint: {accept: [\"spot-only-jobs@budget.yaml:x\"]}\n");
  const Run line = s.fleetsim("lint " + scenario);
  CHECK(line.exit_code == 2);
  CHECK(line.err == "error: " + scenario +
                        ":5:17: lint.accept[0]: \"spot-only-jobs@budget.yaml:x\": expected RULE, "
                        "RULE@FILE or RULE@FILE:LINE with LINE a line number\n");
  s.write("scenario.yaml", kHead + "lint: {accepts: [spot-only-jobs]}\n");
  CHECK(s.fleetsim("lint " + scenario).exit_code == 2);
}

TEST_CASE("lint --sarif writes SARIF 2.1.0, accepted findings suppressed", "[cli][lint]") {
  Scratch s("lint-sarif");
  write_inputs(s);
  const std::string scenario =
      s.write("scenario.yaml", kHead + "lint: {accept: [unneeded-toleration]}\n").string();
  const std::string sarif = (s.dir / "lint.sarif").string();
  const Run r = s.fleetsim("lint --sarif " + sarif + " " + scenario);
  CHECK(r.exit_code == 1);
  const nlohmann::json log = nlohmann::json::parse(fleetsim::test::slurp(sarif));
  CHECK(log.at("version") == "2.1.0");
  const nlohmann::json& results = log.at("runs").at(0).at("results");
  REQUIRE(results.size() == 2);
  CHECK(results.at(0).at("ruleId") == "budget-blocks-forever");
  CHECK_FALSE(results.at(0).contains("suppressions"));
  CHECK(results.at(1).at("ruleId") == "unneeded-toleration");
  CHECK(results.at(1).at("suppressions").at(0).at("kind") == "external");
  CHECK(results.at(1).at("locations").at(0).at("physicalLocation").at("region") ==
        nlohmann::json{{"startLine", 16}, {"startColumn", 18}});
  // Checked as every output is: never onto an input.
  const Run onto = s.fleetsim("lint --sarif " + scenario + " " + scenario);
  CHECK(onto.exit_code == 2);
  CHECK_THAT(onto.err,
             Catch::EndsWith("error: " + scenario +
                             ": --sarif: is the same file as the "
                             "input " +
                             scenario + " (SCENARIO); an output must not overwrite an input\n"));
}
