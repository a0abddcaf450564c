// Settings that would hang a run or keep it from doing anything are refused at load, at their
// file:line:col (issue 25, item 8).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

const std::string kWeb = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: web, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
)";

std::string validate_error(const std::string& extra) {
  Scratch s("bounds-cli");
  s.write("pools.yaml", kG5Pool + kWeb);
  const auto f =
      s.write("scenario.yaml", "name: bad\nduration: 1h\nmanifests: [pools.yaml]\n" + extra);
  Run o = s.fleetsim("validate --warnings none " + f.string());
  CHECK(o.exit_code == 2);
  const std::string prefix = "error: " + f.string() + ":";
  return o.err.starts_with(prefix) ? o.err.substr(prefix.size()) : o.err;
}

}  // namespace

TEST_CASE("a scripted scale is bounded as replicas are, at Kubernetes' practical 150,000",
          "[cli]") {
  CHECK(validate_error("events:\n  - {at: 5m, scale: {deployment: web, replicas: 150001}}\n") ==
        "5:49: events[0].scale.replicas: 150001 is out of range [0, 150000]\n");
}

TEST_CASE("the Cluster Autoscaler's max_node_provision_time is at least 1s", "[cli]") {
  CHECK(validate_error("cluster_autoscaler: {max_node_provision_time: 0s}\n") ==
        "4:47: cluster_autoscaler.max_node_provision_time: must be from 1s to 168h0m0s\n");
}

TEST_CASE("the Cluster Autoscaler's node_info_cache_expire_time is at most its default of 87600h",
          "[cli]") {
  CHECK(validate_error("cluster_autoscaler: {node_info_cache_expire_time: 87601h}\n") ==
        "4:51: cluster_autoscaler.node_info_cache_expire_time: must be from 0s to 87600h0m0s\n");
}

TEST_CASE("a spot wave takes at least 1% of an offering's instances", "[cli]") {
  CHECK(validate_error("spot: {interruption_rate: band_max, waves: {share: 1e-300}}\n") ==
        "4:52: spot.waves.share: a wave takes a share from 0.01 to 1\n");
}

TEST_CASE("the controller-manager's API limits are positive", "[cli]") {
  CHECK(validate_error("kube_controller_manager: {kube_api_qps: 0}\n") ==
        "4:41: kube_controller_manager.kube_api_qps: must be in (0, 1000000]\n");
  CHECK(validate_error("kube_controller_manager: {kube_api_qps: 20, kube_api_burst: 0}\n") ==
        "4:61: kube_controller_manager.kube_api_burst: 0 is out of range [1, 1000000]\n");
}
