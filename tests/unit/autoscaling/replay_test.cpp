#include "fleetsim/autoscaling/replay.hpp"

#include <catch2/catch.hpp>

#include "autoscaling_test_util.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Changes as (seconds, replicas) pairs, for compact comparisons.
std::vector<std::pair<std::int64_t, std::int32_t>> pairs(const std::vector<ReplicaChange>& v) {
  std::vector<std::pair<std::int64_t, std::int32_t>> out;
  for (const ReplicaChange& c : v)
    out.emplace_back(c.at.time_since_epoch() / seconds(1), c.replicas);
  return out;
}

using Changes = std::vector<std::pair<std::int64_t, std::int32_t>>;

}  // namespace

TEST_CASE("replay: min 2, max 10, +2 pods per 60 s, -1 pod per 120 s after a 300 s window",
          "[autoscaling]") {
  HpaBehavior b{.scale_up = rules({pods_per(2, 60)}), .scale_down = rules({pods_per(1, 120)}, 300)};
  auto spec = make_hpa({.min = 2, .max = 10, .metrics = {pods_average(8000)}, .behavior = b});
  // 8 requests per pod at first (on target), a surge to 32 at 30 s, 4 from 300 s on.
  MetricSeries series = MetricSeries::parse("time_s,value\n0,8\n30,32\n300,4\n", "s.csv");
  auto changes = replay_hpa(spec, series, {.initial_replicas = 2, .duration = minutes(20)});
  // Up by 2 every 60 s to the max; down one pod per 120 s once the last surge recommendation
  // (t=285) has left the 300 s window at t=585.
  CHECK(pairs(changes) == Changes{{0, 2},
                                  {30, 4},
                                  {90, 6},
                                  {150, 8},
                                  {210, 10},
                                  {585, 9},
                                  {705, 8},
                                  {825, 7},
                                  {945, 6},
                                  {1065, 5},
                                  {1185, 4}});
}

TEST_CASE("replay: a metric missing at first keeps the HPA where it is", "[autoscaling]") {
  auto spec = make_hpa({.min = 2, .max = 10, .metrics = {pods_average(1000)}});
  MetricSeries series = MetricSeries::parse("time_s,value\n60,3\n", "s.csv");
  auto changes = replay_hpa(spec, series, {.initial_replicas = 2, .duration = seconds(90)});
  // No sample before t=60: the Pods metric fails and the HPA keeps 2. Then 3 per pod against a
  // target of 1: the legacy cap doubles each sync (4, 8) up to the max.
  CHECK(pairs(changes) == Changes{{0, 2}, {60, 4}, {75, 8}, {90, 10}});
}

TEST_CASE("replay: a CPU utilization series is each pod's percent of its request",
          "[autoscaling]") {
  auto spec = make_hpa({.min = 1, .max = 10, .metrics = {cpu_utilization(50)}});
  MetricSeries series = MetricSeries::parse("time_s,value\n0,75\n", "s.csv");
  auto changes = replay_hpa(spec, series, {.initial_replicas = 2, .duration = seconds(15)});
  // 75% / 50% x 2 = 3, then x 3 = 4.5 -> 5.
  CHECK(pairs(changes) == Changes{{0, 2}, {0, 3}, {15, 5}});
}

TEST_CASE("replay: KEDA activates, its HPA scales, and cooldown returns it to zero",
          "[autoscaling]") {
  ScaledObjectSpec so;
  so.name = "llm";
  so.cooldown_period = seconds(120);
  so.max_replica_count = 10;
  KedaTrigger trigger;
  trigger.query = "sum(vllm:num_requests_waiting)";
  trigger.threshold = 10;
  trigger.activation_threshold = 5;
  so.triggers = {trigger};
  MetricSeries series = MetricSeries::parse("time_s,value\n0,3\n60,45\n120,4\n", "s.csv");
  auto changes = replay_scaled_object(so, series, {.initial_replicas = 0, .duration = minutes(15)});
  // t=60: the poll activates 0 -> 1, then the HPA sync at the same instant goes to 4 (legacy
  // cap) and to 5 at t=75. Inactive from t=120; last active at t=90 (a poll), so the first poll
  // with 90 + 120 < now is t=240.
  CHECK(pairs(changes) == Changes{{0, 0}, {60, 1}, {60, 4}, {75, 5}, {240, 0}});
}

TEST_CASE("replay: a metric of 1e16 scales to the max instead of freezing (issue 13, class 5)",
          "[autoscaling]") {
  auto spec = make_hpa({.min = 2, .max = 10, .metrics = {pods_average(8000)}});
  MetricSeries series = MetricSeries::parse("time_s,value\n0,8\n30,1e16\n", "s.csv");
  auto changes = replay_hpa(spec, series, {.initial_replicas = 2, .duration = minutes(2)});
  // The legacy path without behavior: at most max(2 × current, 4) per sync, then the max.
  CHECK(pairs(changes) == Changes{{0, 2}, {30, 4}, {45, 8}, {60, 10}});
}
