// Checkpoints (issue 9, item 5): an interrupted Job loses only the work since its last
// checkpoint, and its replacement resumes from there after the restart overhead.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/runner/one_type_pool.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

const std::string kPool = test::one_type_pool("gpu", "g5.xlarge", "spot");

// A one-GPU Job that runs 3 hours, with the given annotations.
std::string job(const std::string& annotations) {
  return R"(apiVersion: batch/v1
kind: Job
metadata:
  name: train
  annotations: {fleetsim.io/duration: 3h)" +
         annotations + R"(}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
)";
}

// When the Job's pods were bound, evicted and completed, and the hourly price of the node each
// eviction and completion happened on.
struct Times final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::PodScheduled) scheduled.push_back(e.time);
    if (e.kind == EventKind::PodEvicted) {
      evicted.push_back(e.time);
      evicted_price = cluster.node(e.node).price_per_hour;
    }
    if (e.kind == EventKind::PodCompleted) {
      completed.push_back(e.time);
      completed_price = cluster.node(e.node).price_per_hour;
    }
  }
  std::vector<SimTime> scheduled, evicted, completed;
  double evicted_price = 0, completed_price = 0;
};

struct JobRun {
  JobRun(const std::string& annotations, const std::string& events) : dir("checkpoint") {
    dir.write("manifests.yaml", kPool + job(annotations));
    const auto file = dir.write(
        "scenario.yaml",
        // API calls instant: the eviction comes at the notice itself, so the lost work is exact.
        "name: checkpoint\nduration: 8h\napi_latency: zero\nmanifests: [manifests.yaml]\n" +
            events);
    const ScenarioConfig config =
        load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&times}});
  }
  test::TempDir dir;
  Times times;
  RunResult result;
};

// Where the uninterrupted Job's pod binds, to script an interruption 70 minutes into its run.
SimTime first_bind() {
  const JobRun plain("", "");
  REQUIRE(plain.times.scheduled.size() == 1);
  return plain.times.scheduled[0];
}

std::string interruption_at(SimTime t) {
  return "events:\n  - {at: " + std::to_string(t.time_since_epoch().count()) +
         "us, spot_interruption: {instance_type: g5.xlarge}}\n";
}

}  // namespace

TEST_CASE(
    "a Job checkpointing every 30 minutes, interrupted 70 minutes in, loses 10 minutes "
    "plus the restart overhead",
    "[runner]") {
  const SimTime interrupted = first_bind() + minutes(70);
  const JobRun r(", fleetsim.io/checkpoint-interval: 30m, fleetsim.io/restart-overhead: 5m",
                 interruption_at(interrupted));
  REQUIRE(r.times.evicted == std::vector<SimTime>{interrupted});
  REQUIRE(r.times.scheduled.size() == 2);
  REQUIRE(r.times.completed.size() == 1);
  // The replacement reloads for 5 minutes, then runs the 120 minutes left after the 60 saved.
  CHECK(r.times.completed[0] == r.times.scheduled[1] + minutes(5) + minutes(120));
  // 10 minutes redone after the 60-minute checkpoint, plus 5 minutes of reloading: 1 GPU × 15 min.
  CHECK(r.result.jobs.lost_gpu_hours == Approx(0.25).epsilon(1e-12));
  CHECK(r.result.jobs.completed == 1);
  REQUIRE(r.result.spot);
  CHECK(r.result.spot->lost_gpu_hours == Approx(10.0 / 60).epsilon(1e-12));
  // The rework at the price paid, per GPU of the one-GPU g5.xlarge: 10 minutes on the
  // interrupted node, 5 minutes of reloading on its replacement.
  CHECK(
      r.result.jobs.rework_usd ==
      Approx(10.0 / 60 * r.times.evicted_price + 5.0 / 60 * r.times.completed_price).epsilon(1e-9));
  CHECK(r.result.spot->rework_usd == Approx(10.0 / 60 * r.times.evicted_price).epsilon(1e-9));
  CHECK(r.times.evicted_price > 0);
}

TEST_CASE("without checkpoints an interrupted Job starts over and loses all its work", "[runner]") {
  const SimTime interrupted = first_bind() + minutes(70);
  const JobRun r("", interruption_at(interrupted));
  REQUIRE(r.times.scheduled.size() == 2);
  REQUIRE(r.times.completed.size() == 1);
  CHECK(r.times.completed[0] == r.times.scheduled[1] + hours(3));
  CHECK(r.result.jobs.lost_gpu_hours == Approx(70.0 / 60).epsilon(1e-12));
}

TEST_CASE("a restart overhead without a checkpoint interval warns and has no effect", "[runner]") {
  test::TempDir dir("checkpoint-warn");
  dir.write("manifests.yaml", kPool + job(", fleetsim.io/restart-overhead: 5m"));
  const auto file =
      dir.write("scenario.yaml", "name: w\nduration: 1h\nmanifests: [manifests.yaml]\n");
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  REQUIRE(config.warnings.size() == 1);
  CHECK(config.warnings[0].field == "Job.metadata.annotations");
  CHECK(config.warnings[0].message ==
        "fleetsim.io/restart-overhead has no effect without fleetsim.io/checkpoint-interval: a "
        "replacement starts over");
}

TEST_CASE("checkpoints on a bare Pod warn: nothing replaces it to resume", "[runner]") {
  test::TempDir dir("checkpoint-pod");
  dir.write("manifests.yaml", kPool + R"(apiVersion: v1
kind: Pod
metadata:
  name: solo
  annotations: {fleetsim.io/duration: 1h, fleetsim.io/checkpoint-interval: 10m}
spec:
  restartPolicy: Never
  containers:
    - name: c
      resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}}
)");
  const auto file =
      dir.write("scenario.yaml", "name: w\nduration: 1h\nmanifests: [manifests.yaml]\n");
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  REQUIRE(config.warnings.size() == 1);
  CHECK(config.warnings[0].field == "Pod.metadata.annotations.fleetsim.io/checkpoint-interval");
  CHECK(config.warnings[0].message ==
        "Pod \"solo\" is not replaced when evicted, so its checkpoints have no effect; run it as "
        "a Job to resume from them");
}
