// run, validate and lint load a scenario through one validation stage (validate_scenario): they
// refuse the same inputs with the same message, and run refuses before it writes anything.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

namespace fs = std::filesystem;
using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

// Each command's result on `scenario`; run writes to out/ in the scratch directory.
struct Verdicts {
  Run run, validate, lint;
};

Verdicts verdicts(const Scratch& s, const fs::path& scenario) {
  return {
      .run = s.fleetsim("run --quiet --out " + (s.dir / "out").string() + " " + scenario.string()),
      .validate = s.fleetsim("validate " + scenario.string()),
      .lint = s.fleetsim("lint " + scenario.string())};
}

void check_refused_alike(const Scratch& s, const Verdicts& v, const std::string& error) {
  CHECK(v.run.exit_code == 2);
  CHECK(v.validate.exit_code == 2);
  CHECK(v.lint.exit_code == 2);
  CHECK_THAT(v.run.err, Catch::Contains(error));
  CHECK(v.validate.err == v.run.err);
  CHECK(v.lint.err == v.run.err);
  CHECK_FALSE(fs::exists(s.dir / "out"));
}

}  // namespace

TEST_CASE("run, validate and lint refuse a job trace's bad row alike, before a run", "[cli]") {
  Scratch s("validation-stage");
  s.write("pools.yaml", kG5Pool);
  s.write("job.yaml",
          "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
          "      restartPolicy: Never\n      containers: [{name: c}]\n");
  s.write("trace.csv",
          "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n1,10,1,1000,1024\n"
          "7200,10,x,1000,1024\n");
  const fs::path f = s.write("scenario.yaml",
                             "name: bad-trace\nduration: 1h\nmanifests: [pools.yaml]\n"
                             "jobs:\n  - {trace: trace.csv, template: job.yaml}\n");
  check_refused_alike(s, verdicts(s, f), "trace.csv:3:9: gpus");
}

TEST_CASE("run, validate and lint refuse a service whose model no instance type holds alike",
          "[cli]") {
  Scratch s("validation-stage");
  s.write("manifests.yaml", kG5Pool + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  replicas: 1
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      containers:
        - name: vllm
          resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
)");
  const fs::path f = s.write("scenario.yaml",
                             "name: too-big\nduration: 1h\nmanifests: [manifests.yaml]\n"
                             "services:\n  - deployment: llm\n"
                             "    traffic: {pattern: poisson, rps: 1}\n"
                             "    model: {name: llama-3.1-70b}\n");
  check_refused_alike(s, verdicts(s, f),
                      "scenario.yaml:7:12: services[0].model: llama-3.1-70b cannot be served on "
                      "any instance type llm's pods can be launched on");
}
