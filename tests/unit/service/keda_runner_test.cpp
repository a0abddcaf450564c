#include "fleetsim/service/keda_runner.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/service/exported_metrics.hpp"
#include "unit/service/service_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

using Changes = std::vector<ServiceRig::Change>;

TEST_CASE(
    "a KedaRunner polls every pollingInterval, activates from zero and deactivates to zero "
    "after the cooldown",
    "[service]") {
  // kedacore/keda pkg/scaling/executor/scale_scaledobjects_test.go covers the executor's branches
  // (TestScaleToMinReplicasWhenNotActive, TestScaleFromMinReplicasWhenActive); here they run on
  // the clock: polls at 0, 30, 60 s, …, the HPA KEDA owns at 0, 15, 30 s, ….
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(0));
  const SeriesId queue =
      rig.metrics.series(kServiceQueueMetric, {{"namespace", "default"}, {"service", "web"}});
  ScaledObjectSpec spec{
      .name = "web",
      .scale_target = {.api_version = "apps/v1", .kind = "Deployment", .name = "web"},
      .cooldown_period = seconds(60),
      .max_replica_count = 10,
      .triggers = {KedaTrigger{.type = KedaTriggerType::Prometheus,
                               .query = "sum(fleetsim_service_queue_length)",
                               .threshold = 5}}};
  KedaRunner keda(rig.sim, rig.workloads, rig.view(), rig.metrics, spec, web);
  keda.start();

  // A queue of 12 from 40 s: the poll at 60 s sees it and activates to 1; the HPA syncing right
  // after reads 12 against 5 per pod, ceil(12 / 5) = 3. Both writes are the ScaledObject's.
  rig.run_to(seconds(40));
  rig.metrics.record(queue, rig.sim.now(), 12);
  rig.run_to(seconds(59));
  CHECK(rig.replica_changes().empty());
  rig.run_to(seconds(60));
  CHECK(rig.replica_changes() ==
        Changes{{60, ReplicasSource::Keda, 0, 1}, {60, ReplicasSource::Keda, 1, 3}});

  // Empty from 100 s: last active at the 90 s poll, the cooldown of 60 s has passed (strictly) at
  // the 180 s poll, which scales to zero; the HPA's 5-minute stabilization held 3 until then.
  rig.run_to(seconds(100));
  rig.metrics.record(queue, rig.sim.now(), 0);
  rig.run_to(seconds(179));
  CHECK(rig.replica_changes().size() == 2);
  rig.run_to(seconds(240));
  CHECK(rig.replica_changes() == Changes{{60, ReplicasSource::Keda, 0, 1},
                                         {60, ReplicasSource::Keda, 1, 3},
                                         {180, ReplicasSource::Keda, 3, 0}});
}
