#include "fleetsim/autoscaling/keda.hpp"

#include <catch2/catch.hpp>

#include "autoscaling_test_util.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct SoShape {
  std::int32_t min = 0;
  std::int32_t max = 100;
  std::optional<std::int32_t> idle;
  SimDuration cooldown = kKedaDefaultCooldownPeriod;
  SimDuration initial_cooldown = kKedaDefaultInitialCooldownPeriod;
  std::optional<KedaFallback> fallback;
  std::vector<KedaTrigger> triggers;
};

KedaTrigger prometheus(double threshold, double activation = 0,
                       MetricTargetType type = MetricTargetType::AverageValue,
                       bool ignore_null_values = true) {
  KedaTrigger t;
  t.type = KedaTriggerType::Prometheus;
  t.server_address = "http://prometheus:9090";
  t.query = "sum(vllm:num_requests_waiting)";
  t.threshold = threshold;
  t.activation_threshold = activation;
  t.metric_type = type;
  t.ignore_null_values = ignore_null_values;
  return t;
}

KedaTrigger cpu(std::int32_t percent) {
  KedaTrigger t;
  t.type = KedaTriggerType::Cpu;
  t.metric_type = MetricTargetType::Utilization;
  t.utilization = percent;
  return t;
}

ScaledObjectSpec make_so(SoShape s) {
  ScaledObjectSpec so;
  so.name = "llm";
  so.scale_target = {.api_version = "apps/v1", .kind = "Deployment", .name = "llm"};
  so.min_replica_count = s.min;
  so.max_replica_count = s.max;
  so.idle_replica_count = s.idle;
  so.cooldown_period = s.cooldown;
  so.initial_cooldown_period = s.initial_cooldown;
  so.fallback = s.fallback;
  so.triggers = s.triggers.empty() ? std::vector<KedaTrigger>{prometheus(10, 5)} : s.triggers;
  return so;
}

TriggerReading q(double v) { return {.value = v, .error = false, .pods = {}}; }
TriggerReading empty_result() { return {.value = std::nullopt, .error = false, .pods = {}}; }
TriggerReading query_error() { return {.value = std::nullopt, .error = true, .pods = {}}; }

KedaInputs at_replicas(std::int32_t replicas, std::vector<TriggerReading> readings) {
  return {.current_replicas = replicas,
          .status_replicas = replicas,
          .pods = std::vector<HpaPod>(static_cast<std::size_t>(replicas)),
          .triggers = std::move(readings)};
}

}  // namespace

TEST_CASE("KEDA activates from zero only above the activation threshold", "[autoscaling]") {
  ScaledObjectController keda(make_so({}), t(0));  // threshold 10, activationThreshold 5
  KedaPollResult at_threshold = keda.poll(t(0), at_replicas(0, {q(5)}));
  CHECK(at_threshold.desired == 0);  // strictly greater is needed
  CHECK_FALSE(at_threshold.active);
  KedaPollResult above = keda.poll(t(30), at_replicas(0, {q(6)}));
  CHECK(above.desired == 1);
  CHECK(above.action == KedaAction::Activated);
  CHECK(keda.last_active_time() == t(30));
}

TEST_CASE("activation goes to minReplicaCount when it is above 1", "[autoscaling]") {
  ScaledObjectController keda(make_so({.min = 3}), t(0));
  CHECK(keda.poll(t(0), at_replicas(0, {q(50)})).desired == 3);
}

TEST_CASE("KEDA's HPA takes 1 to N with ceil(query / threshold)", "[autoscaling]") {
  ScaledObjectController keda(make_so({}), t(0));
  REQUIRE(keda.poll(t(0), at_replicas(0, {q(45)})).desired == 1);
  // The HPA has no behavior, so the legacy cap max(2 x 1, 4) = 4 applies first.
  HpaDecision first = keda.sync_hpa(t(0), at_replicas(1, {q(45)}));
  CHECK(first.metric_recommendation == 5);
  CHECK(first.desired == 4);
  // Then 45 / (10 x 4) = 1.125: ceil(4.5) = 5.
  CHECK(keda.sync_hpa(t(15), at_replicas(4, {q(45)})).desired == 5);
  // 45 / 50 = 0.9 is within the tolerance.
  CHECK(keda.sync_hpa(t(30), at_replicas(5, {q(45)})).desired == 5);
}

TEST_CASE("the HPA does nothing while KEDA holds the target at zero", "[autoscaling]") {
  ScaledObjectController keda(make_so({}), t(0));
  HpaDecision d = keda.sync_hpa(t(0), at_replicas(0, {q(45)}));
  CHECK(d.desired == 0);
  CHECK(d.reason == HpaReason::ScalingDisabled);
}

TEST_CASE("a Value metricType scales by value / threshold x ready pods", "[autoscaling]") {
  ScaledObjectController keda(make_so({.triggers = {prometheus(10, 0, MetricTargetType::Value)}}),
                              t(0));
  CHECK(keda.sync_hpa(t(0), at_replicas(2, {q(45)})).metric_recommendation == 9);
}

TEST_CASE("scale to zero waits for cooldownPeriod after the last active poll", "[autoscaling]") {
  ScaledObjectController keda(make_so({.cooldown = seconds(60)}), t(0));
  CHECK(keda.poll(t(0), at_replicas(3, {q(20)})).action == KedaAction::None);  // stamps t=0
  CHECK(keda.poll(t(30), at_replicas(3, {q(2)})).action == KedaAction::CoolingDown);
  // lastActiveTime + cooldown must be strictly before now.
  CHECK(keda.poll(t(60), at_replicas(3, {q(2)})).action == KedaAction::CoolingDown);
  KedaPollResult off = keda.poll(t(90), at_replicas(3, {q(2)}));
  CHECK(off.action == KedaAction::Deactivated);
  CHECK(off.desired == 0);
}

TEST_CASE("one active trigger keeps the target from scaling to zero", "[autoscaling]") {
  ScaledObjectController keda(
      make_so({.cooldown = seconds(0), .triggers = {prometheus(10, 5), prometheus(10, 5)}}), t(0));
  CHECK(keda.poll(t(30), at_replicas(2, {q(1), q(9)})).desired == 2);
  CHECK(keda.poll(t(60), at_replicas(2, {q(1), q(1)})).desired == 0);
}

TEST_CASE("initialCooldownPeriod delays the first scale to zero", "[autoscaling]") {
  ScaledObjectController keda(make_so({.initial_cooldown = seconds(120)}), t(0));
  for (std::int64_t s = 0; s <= 120; s += 30) {
    CHECK(keda.poll(t(s), at_replicas(2, {q(0)})).action == KedaAction::CoolingDown);
  }
  CHECK(keda.poll(t(150), at_replicas(2, {q(0)})).desired == 0);
  // The default, 0: creation + 0 must be strictly before now.
  ScaledObjectController fresh(make_so({}), t(0));
  CHECK(fresh.poll(t(0), at_replicas(2, {q(0)})).action == KedaAction::CoolingDown);
  CHECK(fresh.poll(t(30), at_replicas(2, {q(0)})).desired == 0);
}

TEST_CASE("idleReplicaCount: inactive goes to idle, active comes back to min", "[autoscaling]") {
  ScaledObjectController keda(make_so({.min = 2, .idle = 0, .cooldown = seconds(0)}), t(0));
  CHECK(keda.poll(t(0), at_replicas(5, {q(20)})).desired == 5);  // active: the HPA's range
  KedaPollResult idle = keda.poll(t(30), at_replicas(5, {q(1)}));
  CHECK(idle.action == KedaAction::Deactivated);
  CHECK(idle.desired == 0);  // straight to idle, below minReplicaCount
  CHECK(keda.poll(t(60), at_replicas(0, {q(1)})).action == KedaAction::None);
  CHECK(keda.poll(t(90), at_replicas(0, {q(20)})).desired == 2);
  // Below min and above idle, an active trigger lifts the count to min too.
  CHECK(keda.poll(t(120), at_replicas(1, {q(20)})).desired == 2);
}

TEST_CASE("without idleReplicaCount an inactive target below min is raised to min",
          "[autoscaling]") {
  ScaledObjectController keda(make_so({.min = 2}), t(0));
  KedaPollResult r = keda.poll(t(0), at_replicas(0, {q(1)}));
  CHECK(r.action == KedaAction::RaisedToMin);
  CHECK(r.desired == 2);
  // At or above min an inactive target is the HPA's business.
  CHECK(keda.poll(t(30), at_replicas(4, {q(1)})).action == KedaAction::None);
}

// The replicas KEDA and its HPA write over time, with KEDA polling every `polling` seconds before
// the HPA's 15 s sync at the same instant, every read seeing `reading`; pods are Ready at once.
std::vector<std::int32_t> replica_series(ScaledObjectController& keda, std::int32_t replicas,
                                         std::int64_t polling, std::int64_t until,
                                         const TriggerReading& reading) {
  std::vector<std::int32_t> series;
  for (std::int64_t s = 0; s <= until; s += 15) {
    if (s % polling == 0) replicas = keda.poll(t(s), at_replicas(replicas, {reading})).desired;
    replicas = keda.sync_hpa(t(s), at_replicas(replicas, {reading})).desired;
    series.push_back(replicas);
  }
  return series;
}

TEST_CASE("fallback: every read, polled or by the HPA, counts towards failureThreshold",
          "[autoscaling]") {
  // Upstream: pkg/scaling/scale_handler.go getScalerState and GetScaledObjectMetrics both go
  // through pkg/fallback GetMetricsWithFallback. Static fallback 6, threshold 3, polling 30 s:
  // failures 1 (poll 0 s), 2 (HPA 0 s), 3 (HPA 15 s), 4 (poll 30 s: the trigger turns active),
  // 5 (HPA 30 s: lands on 6).
  ScaledObjectController keda(
      make_so({.fallback = KedaFallback{.failure_threshold = 3, .replicas = 6},
               .triggers = {prometheus(10, 5, MetricTargetType::AverageValue, false)}}),
      t(0));
  CHECK(replica_series(keda, 3, 30, 60, empty_result()) ==
        std::vector<std::int32_t>{3, 3, 6, 6, 6});
  CHECK(keda.fallback_active());
  // Falling back, the poll sees an active trigger without error: no scale to zero, whatever the
  // cooldown, and lastActiveTime moves on.
  KedaPollResult p = keda.poll(t(600), at_replicas(6, {empty_result()}));
  CHECK(p.active);
  CHECK_FALSE(p.error);
  CHECK(p.desired == 6);
  CHECK(keda.last_active_time() == t(600));
  // A good read resets the count.
  CHECK(keda.sync_hpa(t(615), at_replicas(6, {q(30)})).metric_recommendation == 3);
  CHECK_FALSE(keda.fallback_active());
}

TEST_CASE("fallback from zero: the poll activates the target, then the HPA lands on the fallback",
          "[autoscaling]") {
  // Upstream: tests/internals/fallback TestFallbackFromZero (minReplicaCount 0, static fallback
  // 3, failureThreshold 1, polling 5 s): the target at 0 goes to 3 when the metrics source goes.
  // Poll 0 s: failure 1; poll 15 s: failure 2 > 1, active, 0 -> 1; the HPA then reads failure 3
  // and lands on 3.
  ScaledObjectController keda(
      make_so({.fallback =
                   KedaFallback{
                       .failure_threshold = 1, .replicas = 3, .behavior = FallbackBehavior::Static},
               .triggers = {prometheus(5, 0, MetricTargetType::AverageValue, false)}}),
      t(0));
  CHECK(replica_series(keda, 0, 15, 45, query_error()) == std::vector<std::int32_t>{0, 3, 3, 3});
}

TEST_CASE("fallback behaviors choose the replicas the HPA lands on", "[autoscaling]") {
  auto landed = [](FallbackBehavior behavior, std::int32_t current) {
    ScaledObjectController keda(
        make_so(
            {.fallback = KedaFallback{.failure_threshold = 0, .replicas = 6, .behavior = behavior},
             .triggers = {prometheus(10)}}),
        t(0));
    return keda.sync_hpa(t(0), at_replicas(current, {query_error()})).metric_recommendation;
  };
  CHECK(landed(FallbackBehavior::Static, 4) == 6);
  CHECK(landed(FallbackBehavior::CurrentReplicas, 4) == 4);
  CHECK(landed(FallbackBehavior::CurrentReplicasIfHigher, 8) == 8);
  CHECK(landed(FallbackBehavior::CurrentReplicasIfHigher, 4) == 6);
  CHECK(landed(FallbackBehavior::CurrentReplicasIfLower, 4) == 4);
}

TEST_CASE("a Value fallback divides by the ready pods so the HPA lands on the replicas",
          "[autoscaling]") {
  ScaledObjectController keda(
      make_so({.fallback = KedaFallback{.failure_threshold = 0, .replicas = 6},
               .triggers = {prometheus(10, 0, MetricTargetType::Value)}}),
      t(0));
  CHECK(keda.sync_hpa(t(0), at_replicas(4, {query_error()})).metric_recommendation == 6);
}

TEST_CASE("a failing trigger without fallback neither activates nor scales in", "[autoscaling]") {
  ScaledObjectController keda(make_so({.cooldown = seconds(0)}), t(0));
  CHECK(keda.poll(t(0), at_replicas(0, {query_error()})).desired == 0);
  KedaPollResult r = keda.poll(t(300), at_replicas(2, {query_error()}));
  CHECK(r.action == KedaAction::TriggerError);
  CHECK(r.desired == 2);
  CHECK(keda.sync_hpa(t(300), at_replicas(2, {query_error()})).reason == HpaReason::MetricsFailed);
}

TEST_CASE("an empty query result reads as 0 under ignoreNullValues", "[autoscaling]") {
  ScaledObjectController keda(make_so({.cooldown = seconds(0)}), t(0));
  KedaPollResult r = keda.poll(t(30), at_replicas(2, {empty_result()}));
  CHECK_FALSE(r.error);
  CHECK(r.desired == 0);
  ScaledObjectController strict(
      make_so({.cooldown = seconds(0),
               .triggers = {prometheus(10, 5, MetricTargetType::AverageValue, false)}}),
      t(0));
  CHECK(strict.poll(t(30), at_replicas(2, {empty_result()})).action == KedaAction::TriggerError);
}

TEST_CASE("a partial trigger error while active does not refresh lastActiveTime", "[autoscaling]") {
  ScaledObjectController keda(make_so({.triggers = {prometheus(10, 5), prometheus(10, 5)}}), t(0));
  keda.poll(t(0), at_replicas(2, {q(20), q(20)}));
  REQUIRE(keda.last_active_time() == t(0));
  CHECK(keda.poll(t(30), at_replicas(2, {q(20), query_error()})).action ==
        KedaAction::TriggerError);
  CHECK(keda.last_active_time() == t(0));
}

TEST_CASE("cpu and memory triggers alone keep the target always active", "[autoscaling]") {
  ScaledObjectController keda(make_so({.triggers = {cpu(60)}}), t(0));
  CHECK(keda.poll(t(0), at_replicas(0, {TriggerReading{}})).desired == 1);
  KedaPollResult r = keda.poll(t(600), at_replicas(3, {TriggerReading{}}));
  CHECK(r.active);
  CHECK(r.desired == 3);
  // The HPA reads them as Resource metrics: 3 pods at 120% of a 60% target -> 6.
  KedaInputs in = at_replicas(3, {TriggerReading{.pods = every_pod(3, 1200).pods}});
  CHECK(keda.sync_hpa(t(600), in).metric_recommendation == 6);
}

TEST_CASE("the HPA KEDA creates", "[autoscaling]") {
  ScaledObjectSpec so = make_so({.max = 12, .triggers = {prometheus(2.5), cpu(70)}});
  HorizontalPodAutoscalerSpec hpa = keda_hpa_spec(so);
  CHECK(hpa.name == "keda-hpa-llm");
  CHECK(hpa.min_replicas == 1);  // minReplicaCount 0 becomes 1
  CHECK(hpa.max_replicas == 12);
  CHECK_FALSE(hpa.behavior);
  REQUIRE(hpa.metrics.size() == 2);
  CHECK(hpa.metrics[0].source == MetricSourceType::External);
  CHECK(hpa.metrics[0].name == "s0-prometheus");
  CHECK(hpa.metrics[0].target.type == MetricTargetType::AverageValue);
  CHECK(hpa.metrics[0].target.milli == 2500);
  CHECK(hpa.metrics[1].source == MetricSourceType::Resource);
  CHECK(hpa.metrics[1].name == "cpu");
  CHECK(hpa.metrics[1].target.average_utilization == 70);
  CHECK(keda_hpa_spec(make_so({.min = 3})).min_replicas == 3);
  // Go's int64(v * 1000) truncates: 1.005 x 1000 is 1004.9999999999999.
  CHECK(keda_milli(1.005) == 1004);
}

TEST_CASE("advanced.horizontalPodAutoscalerConfig.behavior reaches the HPA", "[autoscaling]") {
  ScaledObjectSpec so = make_so({});
  so.hpa_behavior = HpaBehavior{.scale_up = rules({pods_per(1, 60)}), .scale_down = {}};
  ScaledObjectController keda(so, t(0));
  REQUIRE(keda.poll(t(0), at_replicas(0, {q(100)})).desired == 1);
  CHECK(keda.sync_hpa(t(0), at_replicas(1, {q(100)})).desired == 2);  // +1 per 60 s
  CHECK(keda.sync_hpa(t(15), at_replicas(2, {q(100)})).desired == 2);
}
