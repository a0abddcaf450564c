#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

// Six fields fleetsim does not model, one inert field (env), and a Job that never ends.
constexpr std::string_view kWorkloads = R"(apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  backoffLimit: 2
  activeDeadlineSeconds: 600
  template:
    spec:
      restartPolicy: Never
      hostNetwork: true
      volumes: [{name: v, emptyDir: {}}]
      containers:
        - name: c
          env: [{name: A, value: b}]
          livenessProbe: {periodSeconds: 10}
          lifecycle: {}
          resources: {requests: {nvidia.com/gpu: 1}}
)";

std::size_t lines_with(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("warnings: behaviour in full, ignored fields summed up above five (issue 12, 8)",
          "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool);
  s.write("job.yaml", std::string(kWorkloads));
  const std::string scenario =
      s.write("scenario.yaml", "name: w\nduration: 10m\nmanifests: [pools.yaml, job.yaml]\n")
          .string();

  Run summary = s.fleetsim("validate " + scenario);
  REQUIRE(summary.exit_code == 0);
  CHECK_THAT(summary.err, Catch::Contains("Job.metadata.annotations.fleetsim.io/duration: Job "
                                          "\"train\" has no fleetsim.io/duration annotation"));
  CHECK_THAT(summary.err,
             Catch::Contains("warning: 6 inputs fleetsim does not model, ignored: "
                             "Job.spec.backoffLimit, Job.spec.activeDeadlineSeconds, "
                             "Job.spec.template.spec.hostNetwork, Job.spec.template.spec.volumes, "
                             "Job.spec.template.spec.containers[].livenessProbe, "
                             "Job.spec.template.spec.containers[].lifecycle (--warnings all says "
                             "where)"));
  // With the pool's "no EC2NodeClass named default" (a behaviour warning too).
  CHECK(lines_with(summary.err, "warning: ") == 3);
  CHECK(summary.err.find("env") == std::string::npos);  // inert: never mentioned

  Run all = s.fleetsim("validate --warnings all " + scenario);
  CHECK(lines_with(all.err, "warning: ") == 8);
  CHECK_THAT(all.err, Catch::Contains("job.yaml:5:3: Job.spec.backoffLimit: not modelled; ignored "
                                      "[unmodelled-field]"));

  CHECK(s.fleetsim("validate --warnings none " + scenario).err.empty());
  CHECK(s.fleetsim("validate --warnings loud " + scenario).exit_code == 2);

  // --quiet drops the progress and the summary table, not the warnings.
  Run quiet = s.fleetsim("run --quiet --out " + (s.dir / "out").string() + " " + scenario);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.empty());
  CHECK(lines_with(quiet.err, "warning: ") == 3);
}

TEST_CASE(
    "a typo in a manifest fails validate, --lenient or manifest_validation reads it as a "
    "warning (issue 25, item 1)",
    "[cli]") {
  Scratch s("cli-lenient");
  s.write("pool.yaml", kG5Pool);
  s.write("web.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: c
          resources: {requets: {cpu: "1"}}
)");
  const std::string scenario = "name: t\nduration: 10m\nmanifests: [pool.yaml, web.yaml]\n";
  const auto file = s.write("s.yaml", scenario).string();
  Run strict = s.fleetsim("validate " + file);
  CHECK(strict.exit_code == 2);
  CHECK(strict.err.find("web.yaml:12:23: spec.template.spec.containers[0].resources.requets: "
                        "unknown field (ResourceRequirements has no such field); did you mean "
                        "\"requests\"?") != std::string::npos);

  Run lenient = s.fleetsim("validate --lenient " + file);
  CHECK(lenient.exit_code == 0);
  CHECK(lenient.err.find("unknown field (ResourceRequirements has no such field; did you mean "
                         "\"requests\"?); ignored") != std::string::npos);

  const auto keyed = s.write("k.yaml", scenario + "manifest_validation: lenient\n").string();
  CHECK(s.fleetsim("validate " + keyed).exit_code == 0);
  Run bad = s.fleetsim("validate " +
                       s.write("b.yaml", scenario + "manifest_validation: loose\n").string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("manifest_validation: unknown manifest_validation \"loose\"; expected strict "
                     "or lenient") != std::string::npos);
}

TEST_CASE(
    "each warning prints its code, --suppress and warnings.suppress drop chosen codes "
    "(issue 25, item 6)",
    "[cli]") {
  Scratch s("cli-suppress");
  s.write("pools.yaml", kG5Pool);
  s.write("job.yaml", std::string(kWorkloads));
  const std::string body = "name: w\nduration: 10m\nmanifests: [pools.yaml, job.yaml]\n";
  const std::string scenario = s.write("scenario.yaml", body).string();

  Run all = s.fleetsim("validate --warnings all " + scenario);
  CHECK_THAT(all.err,
             Catch::Contains("has no fleetsim.io/duration annotation (on the Job or its pod "
                             "template): its pods run until the end of the run and it "
                             "never completes [endless-job]"));
  CHECK_THAT(all.err, Catch::Contains("[missing-node-class]"));
  CHECK(lines_with(all.err, "[unmodelled-field]") == 6);

  Run fewer =
      s.fleetsim("validate --warnings all --suppress unmodelled-field,endless-job " + scenario);
  CHECK(fewer.exit_code == 0);
  CHECK(lines_with(fewer.err, "warning: ") == 1);
  CHECK_THAT(fewer.err, Catch::Contains("[missing-node-class]"));

  const std::string keyed =
      s.write("keyed.yaml", body + "warnings: {suppress: [unmodelled-field, missing-node-class]}\n")
          .string();
  Run from_scenario = s.fleetsim("validate --warnings all " + keyed);
  CHECK(lines_with(from_scenario.err, "warning: ") == 1);
  CHECK_THAT(from_scenario.err, Catch::Contains("[endless-job]"));

  Run bad_flag = s.fleetsim("validate --suppress endless-jobs " + scenario);
  CHECK(bad_flag.exit_code == 2);
  CHECK_THAT(bad_flag.err, Catch::Contains("error: --suppress: unknown warning code "
                                           "\"endless-jobs\"; did you mean \"endless-job\"?"));
  Run bad_key =
      s.fleetsim("validate " +
                 s.write("bad.yaml", body + "warnings: {suppress: [unmodeled-field]}\n").string());
  CHECK(bad_key.exit_code == 2);
  CHECK_THAT(bad_key.err, Catch::Contains("bad.yaml:4:23: warnings.suppress[0]: unknown warning "
                                          "code \"unmodeled-field\"; did you mean "
                                          "\"unmodelled-field\"?"));
}

TEST_CASE(
    "a probe that cannot pass within the run is warned about with the time it needs "
    "(issue 25, item 8)",
    "[cli]") {
  Scratch s("cli-probes");
  s.write("pool.yaml", kG5Pool);
  auto deployment = [](const std::string& name, const std::string& probe) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
           "}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: " + name +
           "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec:\n      containers:\n        - name: c\n          resources: "
           "{requests: {cpu: \"1\"}}\n          " +
           probe + "\n";
  };
  s.write("web.yaml",
          deployment("slow", "readinessProbe: {periodSeconds: 600, successThreshold: 10}") +
              "---\n" +
              deployment("never",
                         "readinessProbe: {periodSeconds: 8589, successThreshold: 2147483647}") +
              "---\n" + deployment("late", "startupProbe: {initialDelaySeconds: 7200}") + "---\n" +
              deployment("fine", "readinessProbe: {periodSeconds: 60, successThreshold: 3}"));
  const auto file =
      s.write("s.yaml", "name: t\nduration: 1h\nmanifests: [pool.yaml, web.yaml]\n").string();
  Run r = s.fleetsim("validate --warnings all " + file);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains(
                        "Deployment default/slow: containers[].readinessProbe: its pods cannot be "
                        "Ready within the run (1h0m0s): the readinessProbe needs at least 1h30m0s "
                        "(initialDelaySeconds + periodSeconds × (successThreshold - 1)) to pass, "
                        "so they stay unready throughout, as in Kubernetes [probe-never-passes]"));
  CHECK_THAT(r.err, Catch::Contains("Deployment default/never: containers[].readinessProbe: its "
                                    "pods cannot be Ready within the run (1h0m0s): the "
                                    "readinessProbe needs at least more than the longest time "
                                    "fleetsim counts"));
  CHECK_THAT(r.err, Catch::Contains("Deployment default/late: containers[].startupProbe: its pods "
                                    "cannot be Ready within the run (1h0m0s): the startupProbe "
                                    "needs at least 2h0m0s (initialDelaySeconds) to pass"));
  CHECK(lines_with(r.err, "[probe-never-passes]") == 3);
}
