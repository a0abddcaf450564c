// `--serving-mode` of run, check, compare and sweep: the fluid mode (or request by request) on a
// scenario as it is, in place of its serving_mode; a service's own simulation: stays.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "unit/cli/cli_harness.hpp"

using namespace fleetsim::test;

namespace {

std::string deployment(const std::string& name) {
  return "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
         "}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name +
         "}}\n    spec:\n      containers:\n        - name: vllm\n          resources:\n"
         "            requests: {cpu: \"3\", memory: 12Gi, nvidia.com/gpu: 1}\n";
}

// Two engine-model services; `pinned` names its own simulation: requests.
std::string scenario(const std::string& top) {
  std::string s =
      "name: modes\nseed: 1\nduration: 10m\nmanifests: [manifests.yaml]\n" + top + "services:\n";
  for (const std::string name : {"free", "pinned"}) {
    s += "  - deployment: " + name +
         "\n    traffic: {pattern: poisson, rps: 1, tokens: {input: 256, output: 64}}\n"
         "    model: {name: llama-3.1-8b}\n    engine: {max_model_len: 8192}\n";
    if (std::string(name) == "pinned") s += "    simulation: requests\n";
  }
  return s;
}

nlohmann::json simulations(const std::filesystem::path& report_file) {
  const nlohmann::json report = nlohmann::json::parse(slurp(report_file));
  return {{"free", report["sla"]["by_service"]["free"]["simulation"]},
          {"pinned", report["sla"]["by_service"]["pinned"]["simulation"]}};
}

}  // namespace

TEST_CASE("run --serving-mode overrides the scenario's serving_mode but not a service's own",
          "[cli]") {
  Scratch s("serving-mode");
  s.write("manifests.yaml", kG5Pool + deployment("free") + deployment("pinned"));
  const auto plain = s.write("plain.yaml", scenario(""));
  const auto fluid = s.write("fluid.yaml", scenario("serving_mode: fluid\n"));

  const std::string dir = s.dir.string();
  REQUIRE(s.fleetsim("run " + plain.string() + " --serving-mode fluid --quiet --out " + dir + "/a")
              .exit_code == 0);
  CHECK(simulations(s.dir / "a/report.json") ==
        nlohmann::json{{"free", "fluid"}, {"pinned", "requests"}});

  REQUIRE(
      s.fleetsim("run " + fluid.string() + " --serving-mode requests --quiet --out " + dir + "/b")
          .exit_code == 0);
  CHECK(simulations(s.dir / "b/report.json") ==
        nlohmann::json{{"free", "requests"}, {"pinned", "requests"}});

  REQUIRE(s.fleetsim("run " + fluid.string() + " --quiet --out " + dir + "/c").exit_code == 0);
  CHECK(simulations(s.dir / "c/report.json") ==
        nlohmann::json{{"free", "fluid"}, {"pinned", "requests"}});
}

TEST_CASE(
    "the serving mode option takes requests or fluid and is no option of a check without a run",
    "[cli]") {
  Scratch s("serving-mode-bad");
  const Run bad = s.fleetsim("run nowhere.yaml --serving-mode flood");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--serving-mode: flood not in {requests,fluid}"));
  const Run check = s.fleetsim("check --report r.json --baseline b.json --serving-mode fluid");
  CHECK(check.exit_code == 2);
  CHECK_THAT(check.err, Catch::Contains("--report excludes --serving-mode"));
}

TEST_CASE("sweep --serving-mode runs every point in that mode and not a study that varies it",
          "[cli]") {
  Scratch s("serving-mode-sweep");
  s.write("manifests.yaml", kG5Pool + deployment("free") + deployment("pinned"));
  s.write("plain.yaml", scenario(""));
  s.write("fluid.yaml", scenario("serving_mode: fluid\n"));
  const auto study = s.write("study.yaml",
                             "scenario: plain.yaml\nseeds: 1\nparameters:\n  length:\n"
                             "    target: duration\n    values: [10m]\n");
  const std::string out = (s.dir / "out").string();
  // The one point's report, in the mode of the sweep that ran it.
  const auto point_report = [&] {
    for (const auto& e : std::filesystem::directory_iterator(s.dir / "out/reports"))
      return simulations(e.path());
    return nlohmann::json();
  };
  REQUIRE(
      s.fleetsim("sweep " + study.string() + " --serving-mode fluid --progress none --out " + out)
          .exit_code == 0);
  CHECK(point_report() == nlohmann::json{{"free", "fluid"}, {"pinned", "requests"}});
  // Its results are of that mode: a resume in the other is refused, not mixed into them.
  const Run other = s.fleetsim("sweep " + study.string() +
                               " --serving-mode requests --progress none --out " + out);
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("results.csv: results: written by another study"));

  const auto varies = s.write("varies.yaml",
                              "scenario: fluid.yaml\nseeds: 1\nparameters:\n  mode:\n"
                              "    target: serving_mode\n    values: [requests, fluid]\n");
  const Run both = s.fleetsim("sweep " + varies.string() + " --serving-mode fluid --out " + out);
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains("varies.yaml:5:13: target: the study varies serving_mode, "
                                       "which --serving-mode would set for every point"));
}

TEST_CASE("compare --serving-mode runs its scenarios in that mode", "[cli]") {
  Scratch s("serving-mode-compare");
  s.write("manifests.yaml", kG5Pool + deployment("free") + deployment("pinned"));
  const auto plain = s.write("plain.yaml", scenario(""));
  const std::string keep = (s.dir / "kept").string();
  REQUIRE(
      s.fleetsim("compare " + plain.string() + " --serving-mode fluid --keep " + keep).exit_code ==
      0);
  CHECK(simulations(s.dir / "kept/modes-seed-1.json") ==
        nlohmann::json{{"free", "fluid"}, {"pinned", "requests"}});
}
