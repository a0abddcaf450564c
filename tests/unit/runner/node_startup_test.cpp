// Node start-up spread in a run (issue 23, item 5): each GPU node's launch-to-Ready time is drawn,
// so pods that each wait for a node of their own wait for different times; fixed phases keep
// every node's start-up as given.
#include <catch2/catch.hpp>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/runner/one_type_pool.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// Twelve one-GPU pods at t = 0, each on a g5.xlarge of its own.
const std::string kManifests =
    test::one_type_pool("gpu", "g5.xlarge", "on-demand") + R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: 12
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      containers:
        - name: c
          resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
)";

RunResult run_with(const std::string& rest, std::uint64_t seed = 1) {
  test::TempDir dir("node-startup");
  dir.write("manifests.yaml", kManifests);
  const auto file = dir.write("scenario.yaml",
                              "name: node-startup\nduration: 30m\nseed: " + std::to_string(seed) +
                                  "\nmanifests: [manifests.yaml]\n" + rest);
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  return run(config, {});
}

}  // namespace

TEST_CASE("node start-up spread: pods waiting for new GPU nodes wait for different times",
          "[runner]") {
  const RunResult spread = run_with("");
  REQUIRE(spread.pods.created == 12);
  const auto& p = spread.pods.pending_seconds;
  CHECK(p.p50 != p.p99);
  CHECK(p.p50 < p.p99);
  CHECK(p.p99 <= p.max);
  // Around the GPU median of 70 s (plus Karpenter's 1 s batch), inside the fit's tails.
  CHECK(p.p50 > 40.0);
  CHECK(p.p50 < 120.0);
  // The same seed gives the same run; another seed other waits.
  const RunResult again = run_with("");
  CHECK(again.pods.pending_seconds.p50 == p.p50);
  CHECK(again.pods.pending_seconds.p99 == p.p99);
  CHECK(again.pods.pending_seconds.max == p.max);
  CHECK(run_with("", 2).pods.pending_seconds.max != p.max);
}

TEST_CASE("node start-up spread: sigma 0 or fixed phases give every node the same start-up",
          "[runner]") {
  for (const std::string& rest :
       {std::string("node_latencies: {gpu: {sigma: 0}}\n"),
        std::string("node_latencies: {gpu: {launch: 5s, registration: 40s, initialization: "
                    "25s}}\n")}) {
    const RunResult r = run_with(rest);
    REQUIRE(r.pods.created == 12);
    const auto& p = r.pods.pending_seconds;
    // 1 s of batching, then 5 + 40 + 25 s to Ready: every pod binds at 71 s.
    CHECK(p.max == 71.0);
    CHECK(p.p50 == Approx(71.0).epsilon(0.01));
    CHECK(p.p99 == Approx(71.0).epsilon(0.01));
    CHECK(p.p50 == p.p99);
  }
}
