#include "fleetsim/service/hpa_runner.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "unit/autoscaling/autoscaling_test_util.hpp"
#include "unit/service/service_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

using Changes = std::vector<ServiceRig::Change>;

namespace {

// The custom metrics API's `qps` for one pod, from now on.
void report_qps(ServiceRig& rig, PodId pod, double value) {
  const LabelSet labels{{"namespace", "default"}, {"pod", rig.cluster.pod(pod).name}};
  rig.metrics.record(rig.metrics.series("qps", labels), rig.sim.now(), value);
}

void report_qps_of_all(ServiceRig& rig, WorkloadId deployment, double value) {
  for (PodId pod : rig.workloads.active_pods(deployment)) report_qps(rig, pod, value);
}

MetricSpec qps_average(std::int64_t milli) {
  return {.source = MetricSourceType::Pods,
          .name = "qps",
          .target = {.type = MetricTargetType::AverageValue, .milli = milli}};
}

}  // namespace

TEST_CASE("an HpaRunner syncs every 15 s from t = 0 and scales by upstream's formula",
          "[service]") {
  // kubernetes pkg/controller/podautoscaler/horizontal_test.go TestScaleUpCM: three pods
  // reporting qps 20, 10 and 30 against an AverageValue of 15 scale to ceil(20 / 15 × 3) = 4.
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(3));
  rig.bind_pending(web);
  const std::vector<PodId> first = rig.workloads.active_pods(web);
  report_qps(rig, first[0], 20);
  report_qps(rig, first[1], 10);
  report_qps(rig, first[2], 30);
  HpaRunner hpa(rig.sim, rig.workloads, rig.view(),
                make_hpa({.min = 2, .max = 6, .metrics = {qps_average(15000)}}), web);
  hpa.start();

  // At 15 s the fourth pod is Pending, which groupPods ignores: ceil(20 / 15 × 3) = 4 stays.
  rig.run_to(seconds(20));
  CHECK(rig.replica_changes() == Changes{{0, ReplicasSource::Hpa, 3, 4}});

  // Every pod at 40 from 20 s: read at the 30 s sync, ceil(40 / 15 × 4) = 11, held to twice the
  // current count (the legacy scale-up limit, max(2 × 4, 4)) and then to maxReplicas.
  rig.bind_pending(web);
  report_qps_of_all(rig, web, 40);
  rig.run_to(seconds(29));
  CHECK(rig.replica_changes() == Changes{{0, ReplicasSource::Hpa, 3, 4}});
  rig.run_to(seconds(60));
  CHECK(rig.replica_changes() ==
        Changes{{0, ReplicasSource::Hpa, 3, 4}, {30, ReplicasSource::Hpa, 4, 6}});
}

TEST_CASE("an HpaRunner scales down at the first sync after its initial recommendation ages out",
          "[service]") {
  // kubernetes pkg/controller/podautoscaler/horizontal_test.go TestScaleDownCM: five pods at
  // qps 12 against an AverageValue of 20 recommend ceil(12 / 20 × 5) = 3. That test starts with
  // no recommendation; a fresh HPA records its current 5 at its first sync
  // (recordInitialRecommendation), which holds the scale-down until it is older than the 5-minute
  // window: at 300 s it is at the cutoff and still counts, at the 315 s sync it does not.
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(5));
  rig.bind_pending(web);
  report_qps_of_all(rig, web, 12);
  HpaRunner hpa(rig.sim, rig.workloads, rig.view(),
                make_hpa({.min = 2, .max = 6, .metrics = {qps_average(20000)}}), web);
  hpa.start();
  rig.run_to(seconds(240));
  report_qps_of_all(rig, web, 12);  // fresh samples before the first leave the lookback delta
  rig.run_to(seconds(314));
  CHECK(rig.replica_changes().empty());
  rig.run_to(seconds(315));
  CHECK(rig.replica_changes() == Changes{{315, ReplicasSource::Hpa, 5, 3}});
}
