// Topology spread at binding, in a run (issue 23): three nodes in zones a, b and c, a Deployment
// spread by zone with maxSkew 1 scaled from 3 to 9. The kube-scheduler keeps the skew at most 1
// (PodTopologySpread's filter); before, binding ignored the constraint and ended at a:4 b:1 c:4.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct ZonesOfWeb final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::PodScheduled) ++by_zone[cluster.node(e.node).zone];
  }
  std::map<std::string, int> by_zone;
};

std::string manifests(int room_in_b) {
  return R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c}
managedNodeGroups:
  - name: general
    instanceType: m5.2xlarge
    desiredCapacity: 3
    availabilityZones: [us-east-1a, us-east-1b, us-east-1c]
---
apiVersion: v1
kind: Pod
metadata: {name: filler}
spec:
  nodeSelector: {topology.kubernetes.io/zone: us-east-1b}
  containers:
    - name: c
      resources: {requests: {cpu: )" +
         std::to_string(7500 - room_in_b * 1000) + R"(m, memory: 128Mi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
           labelSelector: {matchLabels: {app: web}}}
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 512Mi}}
)";
}

std::map<std::string, int> web_zones(int room_in_b) {
  test::TempDir dir("spread-binding");
  dir.write("manifests.yaml", manifests(room_in_b));
  const auto file = dir.write("scenario.yaml",
                              "name: spread\nduration: 30m\nmanifests: [manifests.yaml]\nevents:\n"
                              "  - {at: 10m, scale: {deployment: default/web, replicas: 9}}\n");
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  ZonesOfWeb zones;
  run(config, {.event_sinks = {&zones}});
  --zones.by_zone["us-east-1b"];  // the filler
  return zones.by_zone;
}

}  // namespace

TEST_CASE("a zone spread with maxSkew 1 scaled from 3 to 9 binds 3 in each zone",
          "[runner][kube]") {
  CHECK(web_zones(7) ==
        std::map<std::string, int>{{"us-east-1a", 3}, {"us-east-1b", 3}, {"us-east-1c", 3}});
}

// Zone b's node has room for two web pods only: a and c take at most one more than b, and the
// rest stay pending (for a provisioner to launch where needed; none here).
TEST_CASE("a zone spread leaves pods pending rather than skew past maxSkew", "[runner][kube]") {
  CHECK(web_zones(2) ==
        std::map<std::string, int>{{"us-east-1a", 3}, {"us-east-1b", 2}, {"us-east-1c", 3}});
}
