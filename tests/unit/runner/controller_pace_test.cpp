// The controller-manager's pace in a run (issue 23, item 2): a Deployment of 100 replicas gets its
// pods from the ReplicaSet controller at its API client's rate, so Karpenter's batch stays open
// until the last one and the first pods wait longer for their nodes.
#include <catch2/catch.hpp>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/runner/one_type_pool.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// 100 pods of 1 CPU at t = 0, on new m5.2xlarge nodes.
const std::string kManifests =
    test::one_type_pool("cpu", "m5.2xlarge", "on-demand") + R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 100
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 1Gi}}
)";

RunResult run_with(const std::string& rest) {
  test::TempDir dir("controller-pace");
  dir.write("manifests.yaml", kManifests);
  const auto file =
      dir.write("scenario.yaml",
                "name: controller-pace\nduration: 10m\nseed: 1\nmanifests: [manifests.yaml]\n"
                "node_latencies: {cpu: {launch: 5s, registration: 40s, initialization: 25s}}\n" +
                    rest);
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  return run(config, {});
}

}  // namespace

TEST_CASE("controller pace: a Deployment's pods trickle in and the first ones wait longer",
          "[runner]") {
  // Without a limit worth the name every pod is created at 0 s: Karpenter's batch closes after
  // 1 s idle, the nodes are Ready 70 s later, and every pod waits 71 s.
  const RunResult unlimited =
      run_with("kube_controller_manager: {kube_api_qps: 1000000, kube_api_burst: 1000000}\n");
  REQUIRE(unlimited.pods.created == 100);
  CHECK(unlimited.pods.pending_seconds.max == 71.0);
  CHECK(unlimited.pods.pending_seconds.p50 == Approx(71.0).epsilon(0.01));
  // kube-controller-manager's defaults: 30 pods at 0 s, then one every 50 ms, the last at 3.5 s;
  // the batch closes 1 s after it, at 4.5 s, so the nodes are Ready at 74.5 s: the first pods
  // wait 74.5 s, the last 71 s.
  const RunResult paced = run_with("");
  REQUIRE(paced.pods.created == 100);
  CHECK(paced.pods.pending_seconds.max == 74.5);
  CHECK(paced.pods.pending_seconds.p50 > 72.0);
  CHECK(paced.pods.pending_seconds.p50 < 74.5);
}
