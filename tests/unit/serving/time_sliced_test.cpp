// Replicas taking turns on a time-sliced GPU: the registry's device choice and speeds, and the
// engines' clocks under ServingModel (issue 26: busy replicas each advance at 1/k of the GPU, less
// the assumed switch cost). No upstream test: the device choice is k8s-device-plugin's
// distributedAlloc (internal/rm/allocate.go), the speeds are fleetsim's documented assumption.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/fluid_serving.hpp"
#include "fleetsim/serving/gpu_share.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "fleetsim/serving/time_sliced_gpus.hpp"
#include "unit/serving/engine_fixtures.hpp"
#include "unit/serving/serving_fixtures.hpp"

namespace fleetsim {
namespace {

using test::Recorder;
using test::VectorSource;

struct SpeedLog final : TimeSliceClient {
  struct Entry {
    std::uint32_t key;
    double speed;
  };
  void on_speed(std::uint32_t key, double speed, SimTime) override {
    entries.push_back({key, speed});
  }
  std::vector<Entry> entries;
};

TimeSlicedGpus::Handle joined(TimeSlicedGpus& gpus, const TimeSliceSeat& seat, SpeedLog& log,
                              std::uint32_t key) {
  const TimeSlicedGpus::Handle h = gpus.join(seat);
  gpus.attach(h, log, key);
  return h;
}

TEST_CASE("a replica takes its device on the node's GPU with the fewest replicas allocated",
          "[serving]") {
  TimeSlicedGpus gpus;
  SpeedLog log;
  const TimeSliceSeat seat{.node = 3, .node_gpus = 2};
  const auto a = joined(gpus, seat, log, 0);
  const auto b = joined(gpus, seat, log, 1);
  const auto c = joined(gpus, seat, log, 2);
  CHECK(gpus.gpu_of(a) == 0);
  CHECK(gpus.gpu_of(b) == 1);
  CHECK(gpus.gpu_of(c) == 0);
  // What a server holds of its GPU's memory counts for the others on that GPU only.
  gpus.hold_memory(a, 0.9);
  CHECK(gpus.memory_of_others(c) == 0.9);
  CHECK(gpus.memory_of_others(a) == 0.0);
  CHECK(gpus.memory_of_others(b) == 0.0);
  gpus.leave(b);
  CHECK(gpus.gpu_of(joined(gpus, seat, log, 3)) == 1);
  gpus.leave(a);
  CHECK(gpus.memory_of_others(c) == 0.0);
  // Another node's GPUs are its own.
  CHECK(gpus.gpu_of(joined(gpus, {.node = 4, .node_gpus = 2}, log, 4)) == 0);
}

TEST_CASE("replicas busy at once on one GPU each run at 1/k of it less the switch cost",
          "[serving]") {
  CHECK(time_sliced_speed(1) == 1.0);
  CHECK(time_sliced_speed(2) == Approx(0.475).epsilon(1e-15));
  CHECK(time_sliced_speed(4) == Approx(0.2375).epsilon(1e-15));
  TimeSlicedGpus gpus;
  SpeedLog log;
  const TimeSliceSeat seat{.node = 1, .node_gpus = 1};
  const auto a = joined(gpus, seat, log, 10);
  const auto b = joined(gpus, seat, log, 11);
  const auto c = joined(gpus, seat, log, 12);
  CHECK(gpus.speed(a) == 1.0);
  gpus.set_busy(a, true, kSimStart);
  CHECK(log.entries.empty());  // alone it runs at full speed
  gpus.set_busy(b, true, kSimStart);
  // a and b share the GPU; c, idle, hears nothing until it has work.
  REQUIRE(log.entries.size() == 2);
  CHECK(log.entries[0].key == 10);
  CHECK(log.entries[0].speed == time_sliced_speed(2));
  CHECK(log.entries[1].key == 11);
  CHECK(log.entries[1].speed == time_sliced_speed(2));
  CHECK(gpus.busy_on_gpu_of(c) == 2);
  gpus.set_busy(c, true, kSimStart);
  REQUIRE(log.entries.size() == 5);
  CHECK(log.entries[4].key == 12);
  CHECK(log.entries[4].speed == Approx(0.95 / 3).epsilon(1e-15));
  log.entries.clear();
  gpus.set_busy(a, false, kSimStart);
  REQUIRE(log.entries.size() == 2);  // b and c, from a third to a half of it
  CHECK(log.entries[1].speed == time_sliced_speed(2));
  gpus.set_busy(c, false, kSimStart);
  REQUIRE(log.entries.size() == 3);
  CHECK(log.entries[2].key == 11);
  CHECK(log.entries[2].speed == 1.0);
  CHECK(gpus.speed(b) == 1.0);
}

ServingConfig engine_config(std::uint32_t slots) {
  return {.concurrency = slots, .service_time = EngineServiceTime{}};
}

// One request of 1,000 prompt and 200 output tokens alone on a replica: its first token and end.
struct Alone {
  double first_token = 0;
  double finished = 0;
};
Alone served_alone(const StepCost& cost) {
  Simulation sim(1);
  ServingModel model(sim, engine_config(cost.limits().max_num_seqs), sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1, .engine = &cost}, kSimStart);
  model.arrive(1000, 200);
  sim.run_until(at(seconds(600)));
  REQUIRE(recorder.outcomes.size() == 1);
  return {to_seconds(recorder.outcomes[0].first_token),
          to_seconds(recorder.outcomes[0].completion)};
}

// Within the microsecond the simulation's events round milestones to.
constexpr double kTolerance = 2e-6;

TEST_CASE("two requests at once on two replicas of one time-sliced GPU each take 1/0.475 as long",
          "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::l40s());
  const Alone alone = served_alone(cost);
  Simulation sim(1);
  ServingModel model(sim, engine_config(cost.limits().max_num_seqs), sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  TimeSlicedGpus gpus;
  const TimeSliceSeat seat{.node = 1, .node_gpus = 1};
  model.add_replica({.id = 1, .engine = &cost, .time_slice = {&gpus, gpus.join(seat)}}, kSimStart);
  model.add_replica({.id = 2, .engine = &cost, .time_slice = {&gpus, gpus.join(seat)}}, kSimStart);
  model.arrive(1000, 200);
  model.arrive(1000, 200);
  CHECK(model.in_flight(1) == 1);
  CHECK(model.in_flight(2) == 1);
  sim.run_until(at(seconds(600)));
  REQUIRE(recorder.outcomes.size() == 2);
  for (const RequestOutcome& o : recorder.outcomes) {
    CHECK(std::abs(to_seconds(o.first_token) - alone.first_token / 0.475) <= kTolerance);
    CHECK(std::abs(to_seconds(o.completion) - alone.finished / 0.475) <= kTolerance);
  }
  // On a node of two GPUs they sit on one each, and run as alone.
  Simulation sim2(1);
  ServingModel apart(sim2, engine_config(cost.limits().max_num_seqs), sim2.rng("serving"));
  Recorder apart_recorder;
  apart.set_observer(&apart_recorder);
  TimeSlicedGpus gpus2;
  const TimeSliceSeat two{.node = 1, .node_gpus = 2};
  apart.add_replica({.id = 1, .engine = &cost, .time_slice = {&gpus2, gpus2.join(two)}}, kSimStart);
  apart.add_replica({.id = 2, .engine = &cost, .time_slice = {&gpus2, gpus2.join(two)}}, kSimStart);
  apart.arrive(1000, 200);
  apart.arrive(1000, 200);
  sim2.run_until(at(seconds(600)));
  REQUIRE(apart_recorder.outcomes.size() == 2);
  for (const RequestOutcome& o : apart_recorder.outcomes)
    CHECK(std::abs(to_seconds(o.completion) - alone.finished) <= kTolerance);
}

TEST_CASE("two services' replicas on one time-sliced GPU slow each other while both are busy",
          "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::l40s());
  const Alone alone = served_alone(cost);
  const double d = alone.finished / 2;  // the second request arrives half-way through the first
  REQUIRE(alone.first_token / 0.475 < alone.finished - d);
  Simulation sim(1);
  TimeSlicedGpus gpus;
  const TimeSliceSeat seat{.node = 7, .node_gpus = 1};
  ServingModel a(sim, engine_config(cost.limits().max_num_seqs), sim.rng("a"));
  ServingModel b(sim, engine_config(cost.limits().max_num_seqs), sim.rng("b"));
  Recorder ra, rb;
  a.set_observer(&ra);
  b.set_observer(&rb);
  a.report_lazily();  // a time-sliced replica's milestones have events all the same
  a.add_replica({.id = 1, .engine = &cost, .time_slice = {&gpus, gpus.join(seat)}}, kSimStart);
  b.add_replica({.id = 1, .engine = &cost, .time_slice = {&gpus, gpus.join(seat)}}, kSimStart);
  VectorSource sa({{.arrival = kSimStart, .input_tokens = 1000, .output_tokens = 200}});
  VectorSource sb(
      {{.arrival = SimTime{from_seconds(d)}, .input_tokens = 1000, .output_tokens = 200}});
  a.attach(sa);
  b.attach(sb);
  sim.run_until(at(seconds(600)));
  REQUIRE(ra.outcomes.size() == 1);
  REQUIRE(rb.outcomes.size() == 1);
  const double start_b = to_seconds(SimTime{from_seconds(d)});
  // a runs alone until b arrives, then both at 0.475 until a's end; b then alone for what is
  // left of its work: the d seconds a had run alone.
  const double end_a = start_b + (alone.finished - start_b) / 0.475;
  CHECK(std::abs(to_seconds(ra.outcomes[0].completion) - end_a) <= kTolerance);
  CHECK(std::abs(to_seconds(rb.outcomes[0].first_token) - (start_b + alone.first_token / 0.475)) <=
        kTolerance);
  CHECK(std::abs(to_seconds(rb.outcomes[0].completion) - (end_a + start_b)) <= kTolerance);
  // Busy time is wall time with work in flight, as DCGM sees it.
  CHECK(std::abs(to_seconds(a.total_busy_time()) - end_a) <= kTolerance);
}

TEST_CASE("a fluid replica's expected speed counts the others on its GPU busy by their shares",
          "[serving]") {
  TimeSlicedGpus gpus;
  SpeedLog log;
  const TimeSliceSeat seat{.node = 2, .node_gpus = 1};
  const auto a = joined(gpus, seat, log, 0);
  CHECK(gpus.expected_speed(a) == 1.0);  // alone
  const auto b = joined(gpus, seat, log, 1);
  const auto c = joined(gpus, seat, log, 2);
  gpus.set_busy_share(b, 0.5);
  CHECK(gpus.expected_speed(a) == Approx(0.5 + 0.5 * 0.475).epsilon(1e-15));
  gpus.set_busy_share(c, 0.25);
  // B: 0 others busy 0.375, 1 0.5, 2 0.125.
  CHECK(gpus.expected_speed(a) == Approx(0.375 + 0.5 * 0.475 + 0.125 * 0.95 / 3).epsilon(1e-15));
  // A request-level replica with work counts as busy all the time.
  gpus.set_busy_share(b, 0);
  gpus.set_busy_share(c, 0);
  gpus.set_busy(b, true, kSimStart);
  CHECK(gpus.expected_speed(a) == time_sliced_speed(2));
}

// Requests enough to keep every replica busy, for 10 minutes.
std::vector<Request> overload() {
  std::vector<Request> out;
  for (int i = 0; i < 600 * 50; ++i)
    out.push_back({.arrival = at(millis(20 * i)), .input_tokens = 512, .output_tokens = 128});
  return out;
}

TEST_CASE("fluid replicas busy all the time on one time-sliced GPU serve 0.475 as much each",
          "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::l40s());
  const RequestMix mix({{.prompt = 512, .output = 128}});
  auto taken = [&](std::uint32_t node_gpus) {
    Simulation sim(1);
    TimeSlicedGpus gpus;
    FluidServing serving(sim, {.concurrency = 1, .service_time = EngineServiceTime{}}, mix,
                         sim.rng("gauges"));
    const TimeSliceSeat seat{.node = 1, .node_gpus = node_gpus};
    serving.add_replica({.id = 1, .engine = &cost, .time_slice = {&gpus, gpus.join(seat)}},
                        kSimStart);
    serving.add_replica({.id = 2, .engine = &cost, .time_slice = {&gpus, gpus.join(seat)}},
                        kSimStart);
    VectorSource source(overload());
    serving.attach(source);
    // Served in the second five minutes, when the stocks in flight have filled.
    sim.run_until(at(seconds(300)));
    serving.catch_up();
    const std::uint64_t before = serving.counters().served;
    sim.run_until(at(seconds(600)));
    serving.catch_up();
    return static_cast<double>(serving.counters().served - before);
  };
  const double apart = taken(2);
  const double shared = taken(1);
  // Apart, each at an L40S's saturation rate; shared, each at 0.475 of it (within the requests
  // counted whole at a piece's end).
  const FluidReplica curve(cost, mix);
  CHECK(apart == Approx(2 * curve.saturation().rate * 300).epsilon(0.002));
  CHECK(shared / apart == Approx(0.475).epsilon(0.002));
}

}  // namespace
}  // namespace fleetsim
