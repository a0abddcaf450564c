#include "fleetsim/autoscaling/hpa.hpp"

#include <catch2/catch.hpp>

#include "autoscaling_test_util.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Replicas after each decide(), applying each decision as the next sync's current count.
std::vector<std::int32_t> run(HpaController& hpa, std::int32_t replicas,
                              const std::vector<std::pair<std::int64_t, std::int64_t>>& syncs) {
  std::vector<std::int32_t> out;
  for (const auto& [time_s, milli] : syncs) {
    replicas = hpa.decide(t(time_s), pods_at(replicas, milli)).desired;
    out.push_back(replicas);
  }
  return out;
}

HpaBehavior behavior(std::optional<ScalingRules> up, std::optional<ScalingRules> down) {
  return {.scale_up = std::move(up), .scale_down = std::move(down)};
}

HpaPod pending_pod() { return {.phase = HpaPodPhase::Pending, .ready = ConditionStatus::False}; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Tolerance

TEST_CASE("a usage ratio within the 0.1 tolerance keeps the replicas", "[autoscaling]") {
  auto spec = make_hpa({.metrics = {pods_average(1000)}});
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 1050)).desired == 10);  // ratio 1.05
  // The band's edges are inside it: 1.1 and 0.9 change nothing.
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 1100)).desired == 10);
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 900)).metric_recommendation == 10);
}

TEST_CASE("a usage ratio outside the tolerance scales by ceil(ratio x ready pods)",
          "[autoscaling]") {
  auto spec = make_hpa({.metrics = {pods_average(1000)}});
  HpaDecision up = HpaController(spec).decide(t(0), pods_at(10, 1200));  // ratio 1.2
  CHECK(up.desired == 12);
  CHECK(up.reason == HpaReason::DesiredWithinRange);
  // ratio 0.85: ceil(8.5) = 9 is proposed (the legacy path then holds it for 5 minutes).
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 850)).metric_recommendation == 9);
}

TEST_CASE("behavior tolerances override the controller's per direction", "[autoscaling]") {
  ScalingRules up;
  up.tolerance = 0.05;
  ScalingRules down;
  down.tolerance = 0.2;
  auto spec = make_hpa({.metrics = {pods_average(1000)}, .behavior = behavior(up, down)});
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 1080)).desired == 11);  // 1.08 > 1.05
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 850)).metric_recommendation == 10);
  // With the gate off the controller-wide 0.1 applies.
  HpaControllerSettings gate_off;
  gate_off.configurable_tolerance = false;
  CHECK(HpaController(spec, gate_off).decide(t(0), pods_at(10, 1080)).desired == 10);
}

// ---------------------------------------------------------------------------------------------
// Missing and unready pods

TEST_CASE("missing pods count as 0 on a scale-up and as the target on a scale-down",
          "[autoscaling]") {
  auto spec = make_hpa({.metrics = {pods_average(1000)}});
  // Two pods at 3.0, two without samples: 3.0 becomes 6000/4 = 1.5, so 6 rather than 12.
  HpaInputs up = inputs(4, {every_pod(4, 3000)});
  up.metrics[0].pods[2].milli.reset();
  up.metrics[0].pods[3].milli.reset();
  CHECK(HpaController(spec).decide(t(0), up).metric_recommendation == 6);
  // Two pods at 0.2, two missing read as 1.0: (400 + 2000) / 4 = 0.6, so ceil(2.4) = 3.
  HpaInputs down = inputs(4, {every_pod(4, 200)});
  down.metrics[0].pods[2].milli.reset();
  down.metrics[0].pods[3].milli.reset();
  CHECK(HpaController(spec).decide(t(0), down).metric_recommendation == 3);
}

TEST_CASE("missing pods in a CPU utilization metric", "[autoscaling]") {
  auto spec = make_hpa({.metrics = {cpu_utilization(50)}});
  SECTION("scale-up: missing pods use nothing") {
    // Five pods at 200% of a 1-core request, five missing: 400% / 50% becomes 100% / 50%.
    HpaInputs in = inputs(10, {every_pod(10, 2000)});
    for (std::size_t i = 5; i < 10; ++i) in.metrics[0].pods[i].milli.reset();
    CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 20);
  }
  SECTION("scale-down: missing pods use their whole request") {
    // Eight at 10%, two missing at 100%: 28% / 50% = 0.56, ceil(5.6) = 6.
    HpaInputs in = inputs(10, {every_pod(10, 100)});
    for (std::size_t i = 8; i < 10; ++i) in.metrics[0].pods[i].milli.reset();
    CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 6);
  }
  SECTION("a scale-down that the missing pods turn into a scale-up keeps the count") {
    // Five at 10%, five missing at 100%: 55% is above the 50% target, so no change.
    HpaInputs in = inputs(10, {every_pod(10, 100)});
    for (std::size_t i = 5; i < 10; ++i) in.metrics[0].pods[i].milli.reset();
    CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 10);
  }
  SECTION("a target above 100% is what missing pods are assumed to use") {
    auto high = make_hpa({.metrics = {cpu_utilization(150)}});
    // Eight at 50%, two missing at 150%: 70% / 150%, ceil(4.67) = 5.
    HpaInputs in = inputs(10, {every_pod(10, 500)});
    for (std::size_t i = 8; i < 10; ++i) in.metrics[0].pods[i].milli.reset();
    CHECK(HpaController(high).decide(t(0), in).metric_recommendation == 5);
  }
  SECTION("a pod without a CPU request fails the metric") {
    HpaInputs in = inputs(2, {every_pod(2, 500)});
    in.metrics[0].pods[1].request_milli = 0;
    CHECK(HpaController(spec).decide(t(0), in).reason == HpaReason::MetricsFailed);
  }
}

TEST_CASE("unready pods count as 0 on a scale-up and are ignored on a scale-down",
          "[autoscaling]") {
  auto spec = make_hpa({.metrics = {cpu_utilization(50)}});
  SECTION("scale-up") {
    // Two Ready pods at 150%, two Pending: 300% of target becomes 75% / 50% over four pods.
    HpaInputs in = inputs(4, {every_pod(4, 1500)});
    in.pods[2] = in.pods[3] = pending_pod();
    in.metrics[0].pods[2].milli.reset();
    in.metrics[0].pods[3].milli.reset();
    CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 6);
  }
  SECTION("scale-down") {
    // Two Ready pods at 10%: ceil(0.2 x 2 ready pods) = 1; the Pending pods play no part.
    HpaInputs in = inputs(4, {every_pod(4, 100)});
    in.pods[2] = in.pods[3] = pending_pod();
    CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 1);
  }
  SECTION("Pending pods are unready for every metric type") {
    auto pods = make_hpa({.metrics = {pods_average(1000)}});
    HpaInputs in = inputs(4, {every_pod(4, 3000)});
    in.pods[2] = in.pods[3] = pending_pod();
    CHECK(HpaController(pods).decide(t(0), in).metric_recommendation == 6);
  }
}

TEST_CASE("CPU samples of pods that never became ready are set aside", "[autoscaling]") {
  // Started 10 minutes ago (past the CPU initialization period); Ready=False since 10 s after
  // start, inside the 30 s initial readiness delay: the pod never became ready.
  HpaPod never_ready{.phase = HpaPodPhase::Running,
                     .ready = ConditionStatus::False,
                     .ready_transition = t(-590),
                     .start_time = t(-600)};
  HpaInputs in = inputs(4, {every_pod(4, 1500)});
  in.pods[3] = never_ready;
  // CPU: three samples at 150% and the unready pod at 0: 112% / 50% = 2.24, ceil(8.96) = 9.
  CHECK(HpaController(make_hpa({.metrics = {cpu_utilization(50)}}))
            .decide(t(0), in)
            .metric_recommendation == 9);
  // Any other metric counts a Running pod as ready: 1.5 x 4 = 6.
  CHECK(HpaController(make_hpa({.metrics = {pods_average(1000)}}))
            .decide(t(0), in)
            .metric_recommendation == 6);
  // A pod that was ready once (its condition changed after the delay) counts for CPU too.
  in.pods[3].ready_transition = t(-540);
  CHECK(HpaController(make_hpa({.metrics = {cpu_utilization(50)}}))
            .decide(t(0), in)
            .metric_recommendation == 12);
}

TEST_CASE("inside the CPU initialization period a sample must postdate readiness by a window",
          "[autoscaling]") {
  auto spec = make_hpa({.metrics = {cpu_utilization(50)}});
  HpaInputs in = inputs(2, {every_pod(2, 1500)});
  for (auto& s : in.metrics[0].pods) s.timestamp = t(0);
  // Started a minute ago; Ready 10 s ago; the 15 s sample window overlaps the start-up.
  in.pods[1] = {.ready = ConditionStatus::True, .ready_transition = t(-10), .start_time = t(-60)};
  // The unready pod's sample is set aside and read as 0 on this scale-up: 75% / 50% x 2 = 3.
  CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 3);
  in.pods[1].ready_transition = t(-20);  // a full window since it became ready
  CHECK(HpaController(spec).decide(t(0), in).metric_recommendation == 6);
  CHECK(HpaController(spec).decide(t(0), in).desired == 4);  // legacy cap max(2 x 2, 4)
}

// ---------------------------------------------------------------------------------------------
// Behavior: policies, periods, stabilization, selectPolicy

TEST_CASE("a Pods policy caps the scale-up per period", "[autoscaling]") {
  HpaController hpa(make_hpa(
      {.metrics = {pods_average(1000)}, .behavior = behavior(rules({pods_per(4, 60)}), {})}));
  // Wanting 20 from 2: +4 at t=0, then nothing until the event at t=0 leaves the 60 s period.
  CHECK(run(hpa, 2, {{0, 10000}, {15, 10000}, {30, 10000}, {45, 10000}, {60, 10000}}) ==
        std::vector<std::int32_t>{6, 6, 6, 6, 10});
}

TEST_CASE("a Percent 100 policy doubles per period", "[autoscaling]") {
  HpaController hpa(make_hpa(
      {.metrics = {pods_average(1000)}, .behavior = behavior(rules({percent_per(100, 60)}), {})}));
  CHECK(run(hpa, 3, {{0, 10000}, {30, 10000}, {60, 10000}}) == std::vector<std::int32_t>{6, 6, 12});
}

TEST_CASE("Percent proposals round as upstream's floating point does", "[autoscaling]") {
  // 50 x 1.1 is 55.00000000000001 in float64, so ceil allows 56.
  HpaController up(make_hpa(
      {.metrics = {pods_average(1000)}, .behavior = behavior(rules({percent_per(10, 15)}), {})}));
  CHECK(up.decide(t(0), pods_at(50, 10000)).desired == 56);
  // Scale-down truncates: 10 x (1 - 0.5) = 5.
  HpaController down(make_hpa({.metrics = {pods_average(1000)},
                               .behavior = behavior({}, rules({percent_per(50, 60)}, 0))}));
  CHECK(down.decide(t(0), pods_at(10, 100)).desired == 5);
}

TEST_CASE("a Pods policy limits the scale-down per period", "[autoscaling]") {
  HpaController hpa(make_hpa(
      {.metrics = {pods_average(1000)}, .behavior = behavior({}, rules({pods_per(1, 120)}, 0))}));
  CHECK(run(hpa, 10, {{0, 100}, {60, 100}, {119, 100}, {120, 100}, {240, 100}}) ==
        std::vector<std::int32_t>{9, 9, 9, 8, 7});
}

TEST_CASE("each period counts scale events of both directions", "[autoscaling]") {
  // Up 4 -> 8 at t=0; at t=15 the 60 s period started at 8 - 4 = 4 replicas, so one pod less
  // than that is 3.
  HpaController hpa(
      make_hpa({.metrics = {pods_average(1000)},
                .behavior = behavior(rules({percent_per(100, 60)}), rules({pods_per(1, 60)}, 0))}));
  CHECK(run(hpa, 4, {{0, 2000}, {15, 100}}) == std::vector<std::int32_t>{8, 3});
}

TEST_CASE("scale-down stabilization takes the highest recommendation in the window",
          "[autoscaling]") {
  HpaController hpa(make_hpa({.metrics = {pods_average(1000)},
                              .behavior = behavior({}, rules({percent_per(100, 15)}, 60))}));
  // Raw recommendations 10, 5, 8, 5, 5, 4, 4; each sync uses the highest of the last 60 s
  // (strictly newer than now - 60 s).
  CHECK(
      run(hpa, 10, {{0, 1000}, {15, 500}, {30, 800}, {45, 500}, {60, 500}, {75, 500}, {90, 500}}) ==
      std::vector<std::int32_t>{10, 10, 10, 10, 8, 8, 5});
}

TEST_CASE("scale-up stabilization takes the lowest recommendation in the window", "[autoscaling]") {
  HpaController hpa(
      make_hpa({.metrics = {pods_average(1000)}, .behavior = behavior(rules({}, 30), {})}));
  // The initial recommendation (10 at t=0) holds the scale-up back until it leaves the window.
  CHECK(run(hpa, 10, {{0, 2000}, {15, 2000}, {30, 2000}}) == std::vector<std::int32_t>{10, 10, 20});
}

TEST_CASE("selectPolicy picks the largest change, the smallest, or none", "[autoscaling]") {
  auto up = [](std::optional<SelectPolicy> select) {
    HpaController hpa(make_hpa(
        {.metrics = {pods_average(1000)},
         .behavior = behavior(rules({pods_per(4, 60), percent_per(100, 60)}, {}, select), {})}));
    return hpa.decide(t(0), pods_at(10, 10000)).desired;  // wants 100
  };
  CHECK(up(std::nullopt) == 20);  // Max by default: +100% beats +4
  CHECK(up(SelectPolicy::Max) == 20);
  CHECK(up(SelectPolicy::Min) == 14);
  CHECK(up(SelectPolicy::Disabled) == 10);

  auto down = [](std::optional<SelectPolicy> select) {
    HpaController hpa(make_hpa(
        {.metrics = {pods_average(1000)},
         .behavior = behavior({}, rules({pods_per(2, 60), percent_per(50, 60)}, 0, select))}));
    return hpa.decide(t(0), pods_at(10, 100)).desired;  // wants 1
  };
  CHECK(down(SelectPolicy::Max) == 5);  // -50% beats -2
  CHECK(down(SelectPolicy::Min) == 8);
  CHECK(down(SelectPolicy::Disabled) == 10);
}

TEST_CASE("behavior defaults: scale-up Max of 4 pods and 100% per 15 s, no window",
          "[autoscaling]") {
  HpaController hpa(make_hpa({.metrics = {pods_average(1000)}, .behavior = HpaBehavior{}}));
  CHECK(run(hpa, 2, {{0, 100000}, {15, 100000}, {30, 100000}}) ==
        std::vector<std::int32_t>{6, 12, 24});
  // Scale-down: a 300 s window, then 100% per 15 s (down to minReplicas).
  HpaController down(make_hpa({.metrics = {pods_average(1000)}, .behavior = HpaBehavior{}}));
  // Only recommendations strictly newer than now - 300 s count, so the initial one (10 at t=0)
  // holds through t=299 and is gone at t=300 (the legacy path still counts it at t=300).
  CHECK(down.decide(t(0), pods_at(10, 100)).desired == 10);
  CHECK(down.decide(t(299), pods_at(10, 100)).desired == 10);
  CHECK(down.decide(t(300), pods_at(10, 100)).desired == 1);
}

// ---------------------------------------------------------------------------------------------
// The legacy path (no behavior)

TEST_CASE("legacy scale-up is capped at max(2 x current, 4)", "[autoscaling]") {
  auto spec = make_hpa({.max = 50, .metrics = {pods_average(1000)}});
  HpaDecision one = HpaController(spec).decide(t(0), pods_at(1, 10000));
  CHECK(one.desired == 4);
  CHECK(one.reason == HpaReason::ScaleUpLimit);
  CHECK(HpaController(spec).decide(t(0), pods_at(3, 10000)).desired == 6);
  CHECK(HpaController(spec).decide(t(0), pods_at(10, 100000)).desired == 20);
  HpaDecision at_max = HpaController(spec).decide(t(0), pods_at(40, 100000));
  CHECK(at_max.desired == 50);
  CHECK(at_max.reason == HpaReason::TooManyReplicas);
}

TEST_CASE("legacy scale-down waits for the 5-minute stabilization window", "[autoscaling]") {
  HpaController hpa(make_hpa({.metrics = {pods_average(1000)}}));
  std::vector<std::pair<std::int64_t, std::int64_t>> syncs;
  for (std::int64_t s = 0; s <= 315; s += 15) syncs.push_back({s, 500});
  std::vector<std::int32_t> got = run(hpa, 10, syncs);
  // The initial recommendation (10 at t=0) counts up to and including t=300.
  CHECK(got[20] == 10);  // t=300
  CHECK(got[21] == 5);   // t=315
}

TEST_CASE("legacy stabilization keeps the highest raw recommendation of the window",
          "[autoscaling]") {
  HpaController hpa(make_hpa({.metrics = {pods_average(1000)}}));
  // A spike to 8 at t=15 holds 8 when the load falls at t=30.
  CHECK(run(hpa, 4, {{0, 1000}, {15, 2000}, {30, 250}, {300, 250}, {330, 250}}) ==
        std::vector<std::int32_t>{4, 8, 8, 8, 2});
}

// ---------------------------------------------------------------------------------------------
// Clamping and the early exits

TEST_CASE("min and max clamp the recommendation", "[autoscaling]") {
  SECTION("legacy: below min") {
    HpaController hpa(make_hpa({.min = 3, .metrics = {pods_average(1000)}}));
    CHECK(hpa.decide(t(0), pods_at(5, 100)).desired == 5);
    HpaDecision d = hpa.decide(t(301), pods_at(5, 100));
    CHECK(d.desired == 3);
    CHECK(d.reason == HpaReason::TooFewReplicas);
  }
  SECTION("behavior: below min and above max") {
    HpaController low(make_hpa(
        {.min = 3, .metrics = {pods_average(1000)}, .behavior = behavior({}, rules({}, 0))}));
    HpaDecision d = low.decide(t(0), pods_at(5, 100));
    CHECK(d.desired == 3);
    CHECK(d.reason == HpaReason::TooFewReplicas);
    HpaController high(
        make_hpa({.max = 10, .metrics = {pods_average(1000)}, .behavior = HpaBehavior{}}));
    d = high.decide(t(0), pods_at(8, 100000));
    CHECK(d.desired == 10);
    CHECK(d.reason == HpaReason::TooManyReplicas);
  }
  SECTION("outside [min, max] the count is set without reading metrics") {
    HpaController hpa(make_hpa({.min = 3, .max = 10, .metrics = {pods_average(1000)}}));
    HpaDecision above = hpa.decide(t(0), inputs(15, {failed_reading()}));
    CHECK(above.desired == 10);
    CHECK(above.reason == HpaReason::AboveMaxReplicas);
    HpaDecision below = hpa.decide(t(15), inputs(1, {failed_reading()}));
    CHECK(below.desired == 3);
    CHECK(below.reason == HpaReason::BelowMinReplicas);
  }
}

TEST_CASE("an HPA scaled to zero does nothing", "[autoscaling]") {
  HpaController hpa(make_hpa({.min = 2, .metrics = {pods_average(1000)}}));
  HpaDecision d = hpa.decide(t(0), inputs(0, {every_pod(0, 5000)}));
  CHECK(d.desired == 0);
  CHECK(d.reason == HpaReason::ScalingDisabled);
  CHECK_FALSE(hpa.reads_metrics(0));
}

// ---------------------------------------------------------------------------------------------
// Multiple metrics, Object and External

TEST_CASE("several metrics: the largest proposal wins", "[autoscaling]") {
  auto spec =
      make_hpa({.metrics = {pods_average(1000), external(MetricTargetType::Value, 10 * kMilli)}});
  // Pods: 2.0 x 4 = 8; External Value: 30 / 10 x 4 ready pods = 12.
  HpaDecision d =
      HpaController(spec).decide(t(0), inputs(4, {every_pod(4, 2000), value_reading(30 * kMilli)}));
  CHECK(d.metric_recommendation == 12);
  CHECK(d.desired == 8);  // the legacy cap, max(2 x 4, 4)
}

TEST_CASE("a failed metric blocks scale-down but not scale-up", "[autoscaling]") {
  auto spec =
      make_hpa({.metrics = {pods_average(1000), external(MetricTargetType::Value, 10 * kMilli)}});
  HpaDecision down =
      HpaController(spec).decide(t(0), inputs(4, {failed_reading(), value_reading(5 * kMilli)}));
  CHECK(down.desired == 4);
  CHECK(down.reason == HpaReason::MetricsFailed);
  HpaDecision up =
      HpaController(spec).decide(t(0), inputs(4, {failed_reading(), value_reading(30 * kMilli)}));
  CHECK(up.desired == 8);
  HpaDecision none =
      HpaController(spec).decide(t(0), inputs(4, {failed_reading(), failed_reading()}));
  CHECK(none.desired == 4);
  CHECK(none.reason == HpaReason::MetricsFailed);
  // A per-pod metric with no samples at all fails too.
  HpaDecision empty = HpaController(spec).decide(
      t(0), inputs(4, {every_pod(4, std::nullopt), value_reading(5 * kMilli)}));
  CHECK(empty.reason == HpaReason::MetricsFailed);
}

TEST_CASE("External and Object Value targets scale by ready pods", "[autoscaling]") {
  auto ext = make_hpa({.metrics = {external(MetricTargetType::Value, 10 * kMilli)}});
  HpaInputs in = inputs(4, {value_reading(30 * kMilli)});
  CHECK(HpaController(ext).decide(t(0), in).metric_recommendation == 12);
  in.pods[0].ready = ConditionStatus::False;
  in.pods[1].ready = ConditionStatus::False;
  CHECK(HpaController(ext).decide(t(0), in).metric_recommendation == 6);  // 3 x 2 ready
  auto obj = make_hpa({.metrics = {object_value(10 * kMilli)}});
  CHECK(HpaController(obj)
            .decide(t(0), inputs(4, {value_reading(30 * kMilli)}))
            .metric_recommendation == 12);
}

TEST_CASE("External AverageValue targets give ceil(value / target)", "[autoscaling]") {
  auto spec = make_hpa({.metrics = {external(MetricTargetType::AverageValue, 10 * kMilli)}});
  // 45 / (10 x 4) = 1.125 is outside the tolerance: ceil(45 / 10) = 5.
  CHECK(HpaController(spec).decide(t(0), inputs(4, {value_reading(45 * kMilli)})).desired == 5);
  // 42 / 40 = 1.05 is inside it: status.replicas.
  CHECK(HpaController(spec)
            .decide(t(0), inputs(4, {value_reading(42 * kMilli)}))
            .metric_recommendation == 4);
}

TEST_CASE("an HPA without metrics targets 80% CPU, as the API defaults it", "[autoscaling]") {
  HpaController hpa(make_hpa({}));
  REQUIRE(hpa.metrics().size() == 1);
  CHECK(hpa.metrics()[0].source == MetricSourceType::Resource);
  CHECK(hpa.metrics()[0].name == "cpu");
  CHECK(hpa.metrics()[0].target.average_utilization == 80);
  // 4 pods at 100% of their request: 100 / 80 = 1.25 -> ceil(5) = 5.
  CHECK(hpa.decide(t(0), inputs(4, {every_pod(4, 1000)})).desired == 5);
}
