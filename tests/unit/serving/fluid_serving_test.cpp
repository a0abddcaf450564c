// FluidServing, the fluid mode's service: requests counted and kept, the router's queue as a
// fluid with its timeout, replicas killed and drained, and the gauges shared as the router shares
// requests.
#include "fleetsim/serving/fluid_serving.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/fluid_replica.hpp"
#include "fleetsim/traffic/traffic_poisson.hpp"
#include "unit/serving/engine_fixtures.hpp"
#include "unit/serving/serving_fixtures.hpp"

namespace fleetsim {
namespace {

using test::VectorSource;

// What the observer heard, by drop reason (None: served), in requests.
struct Counts final : ServingObserver, ReplicaListener {
  void on_request_done(const RequestOutcome& o) override { on_requests_done(o, 1); }
  void on_requests_done(const RequestOutcome& o, std::uint64_t count) override {
    by_reason[o.drop_reason] += count;
    if (!o.dropped) {
      CHECK(o.arrival <= o.start);
      CHECK(o.start <= o.first_token);
      CHECK(o.first_token <= o.completion);
    }
  }
  void on_replica_drained(ReplicaId id, SimTime now, SimDuration) override { drained[id] = now; }
  std::map<DropReason, std::uint64_t> by_reason;
  std::map<ReplicaId, SimTime> drained;
};

// `rps` requests a second for `seconds`, evenly spaced, 512 tokens in and 128 out.
std::vector<Request> steady(double rps, int seconds) {
  std::vector<Request> out;
  const auto n = static_cast<int>(rps * seconds);
  for (int i = 0; i < n; ++i)
    out.push_back(
        {.arrival = at(from_seconds(i / rps)), .input_tokens = 512, .output_tokens = 128});
  return out;
}

RequestMix chat_mix() { return RequestMix({{.prompt = 512, .output = 128}}); }

// A replica's slots are its engine's max_num_seqs, as the service runtime sets them.
ServingConfig engine_config(const StepCost& cost,
                            std::optional<SimDuration> timeout = std::nullopt) {
  return {.concurrency = cost.limits().max_num_seqs,
          .service_time = EngineServiceTime{},
          .queue_timeout = timeout};
}

TEST_CASE("the fluid mode counts every request once: served or in flight") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost), chat_mix(), sim.rng("gauges"));
  Counts counts;
  serving.set_observer(&counts);
  serving.add_replica({.id = 1, .engine = &cost}, kSimStart);
  serving.add_replica({.id = 2, .engine = &cost}, kSimStart);
  VectorSource source(steady(10, 600));
  serving.attach(source);
  sim.run_until(at(seconds(300)));
  serving.catch_up();

  const ServingCounters c = serving.counters();
  CHECK(c.arrived == 3000);  // 10 a second for 300 s
  CHECK(counts.by_reason[DropReason::None] == c.served);
  CHECK(c.queued == 0);  // two H100s serve 10 a second with room to spare
  // Little's law: what is in flight is the rate times the latency, and the rest was served.
  CHECK(c.served + c.in_flight >= c.arrived - 1);
  CHECK(c.served + c.in_flight <= c.arrived + 1);
  CHECK(serving.served_by(1) + serving.served_by(2) >= c.served - 2);
  // The replicas share the load equally, and their busy time follows.
  CHECK(serving.served_by(1) == serving.served_by(2));
  CHECK(serving.busy_time(1) > seconds(200));
  CHECK(serving.total_busy_time() == serving.busy_time(1) + serving.busy_time(2));
}

// vLLM refuses a request longer than max_model_len at once, as the request level's engine does
// (DropReason::TooLong); the replica serves the rest, on their lengths alone. One replica, 10
// requests a second for 300 s: what it served and refused, and the refusals heard.
struct Refusals {
  ServingCounters counters;
  std::uint64_t heard = 0;
};
Refusals refusals(const StepCost& cost, RequestMix mix) {
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost), std::move(mix), sim.rng("gauges"));
  Counts counts;
  serving.set_observer(&counts);
  serving.add_replica({.id = 1, .engine = &cost}, kSimStart);
  VectorSource source(steady(10, 600));
  serving.attach(source);
  sim.run_until(at(seconds(300)));
  serving.catch_up();
  return {serving.counters(), counts.by_reason[DropReason::TooLong]};
}

TEST_CASE("a fluid replica refuses the share of the mix longer than its engine takes") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100(), 1, {.max_model_len = 4096});
  // A quarter, the moment they arrive; reports are whole requests, rounded in turn (a piece's
  // served and refused share one carry), so within a request a piece (20 of 15 s).
  const Refusals r =
      refusals(cost, RequestMix({{.prompt = 512, .output = 128},
                                 {.prompt = 512, .output = 128},
                                 {.prompt = 512, .output = 128},
                                 {.prompt = 4000, .output = 128}}));  // 4,128: too long
  const ServingCounters& c = r.counters;
  CHECK(c.arrived == 3000);
  CHECK(r.heard == c.dropped);
  CHECK(c.dropped >= 730);
  CHECK(c.dropped <= 770);
  CHECK(c.served + c.in_flight + c.dropped >= 2999);
  CHECK(c.served + c.in_flight + c.dropped <= 3001);

  // One that takes none of the mix refuses every request, and serves none.
  const Refusals none = refusals(cost, RequestMix({{.prompt = 5000, .output = 128}}));
  CHECK(none.counters.served == 0);
  CHECK(none.counters.dropped >= 2999);
  CHECK(none.heard == none.counters.dropped);
}

TEST_CASE("without a Ready replica the fluid queue holds requests until their timeout") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost, seconds(60)), chat_mix(), sim.rng("gauges"));
  Counts counts;
  serving.set_observer(&counts);
  serving.add_replica({.id = 1, .engine = &cost}, std::nullopt);  // Starting: takes nothing
  VectorSource source(steady(10, 600));
  serving.attach(source);
  sim.run_until(at(seconds(300)));
  serving.catch_up();

  // Arrivals wait spread over their piece, and those that waited 60 s by a piece's middle are
  // dropped: those of the last 60 s (±1 piece) wait.
  const ServingCounters c = serving.counters();
  CHECK(c.arrived == 3000);
  CHECK(c.served == 0);
  CHECK(c.queued >= 550);
  CHECK(c.queued <= 650);
  CHECK(c.dropped + c.queued == 3000);
  CHECK(counts.by_reason[DropReason::QueueTimeout] == c.dropped);

  // Ready now, the replica takes the queue from its head.
  serving.set_ready(1);
  sim.run_until(at(seconds(330)));
  serving.catch_up();
  CHECK(serving.counters().queued == 0);
}

// Two replicas of eight slots on A10Gs, sent twice what they serve for 15 minutes; a third comes
// at 300 s, behind the backlog.
struct BacklogThenThirdReplica {
  BacklogThenThirdReplica()
      : cost(test::step_cost(test::llama_8b(), test::a10g(), 1, EngineOptions{.max_num_seqs = 8})),
        saturation(FluidReplica(cost, chat_mix()).saturation().rate),
        serving(sim, engine_config(cost, seconds(3600)), chat_mix(), sim.rng("gauges")),
        source(steady(4 * saturation, 900)) {
    serving.add_replica({.id = 1, .engine = &cost}, kSimStart);
    serving.add_replica({.id = 2, .engine = &cost}, kSimStart);
    serving.attach(source);
    sim.run_until(at(seconds(300)));
    serving.catch_up();
    served_before = serving.counters().served;
    serving.add_replica({.id = 3, .engine = &cost}, sim.now());
  }
  double served_since(int seconds_in) {
    sim.run_until(at(seconds(seconds_in)));
    serving.catch_up();
    return static_cast<double>(serving.counters().served - served_before);
  }

  StepCost cost;
  double saturation;
  Simulation sim{1};
  FluidServing serving;
  VectorSource source;
  std::uint64_t served_before = 0;
};

// The request level's router sends a request to a replica only into a free slot, and keeps a
// queue only while every Ready replica is full: a replica Ready behind a backlog takes its slots'
// worth at once and then what it serves, and every Ready replica's gauge reads full.
TEST_CASE("behind a backlog a fluid replica holds its slots and no more and reads full") {
  BacklogThenThirdReplica run;
  for (int t = 301; t <= 420; t += 7) {
    run.sim.run_until(at(seconds(t)));
    run.serving.catch_up();
    INFO("at " << t << " s");
    REQUIRE(run.serving.counters().queued > 0);
    for (ReplicaId id = 1; id <= 3; ++id) {
      CHECK(run.serving.load(id).running == 8);
      CHECK(run.serving.in_flight(id) == 8);
    }
  }
  // Then the three serve their saturation: the third has no head start on them.
  const double before = run.served_since(420);
  CHECK(run.served_since(480) - before == Approx(3 * run.saturation * 60).epsilon(0.02));
}

// Eight requests that start together on a replica Ready behind a backlog complete as a renewal
// process from its start: behind the steady flow by (1 − c²) ÷ 2 a slot, four requests here where
// every request is alike (c = 0), and the queue drains that much later. The request level's
// engine, eight slots of log-normal lengths (c² 0.42), lags 2.3–3.5 requests over its first
// minute; the fluid mode without the lag emptied a queue behind four new replicas 9 s before it.
TEST_CASE("slots that start together behind a backlog complete behind the steady flow") {
  BacklogThenThirdReplica run;
  const double served = run.served_since(420);
  REQUIRE(run.serving.counters().queued > 0);
  CHECK(served == Approx(3 * run.saturation * 120 - 8 * 0.5).margin(1));
}

TEST_CASE("a killed fluid replica drops what it held and a draining one is heard of once empty") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost), chat_mix(), sim.rng("gauges"));
  Counts counts;
  serving.set_observer(&counts);
  serving.set_replica_listener(&counts);
  serving.add_replica({.id = 1, .engine = &cost}, kSimStart);
  serving.add_replica({.id = 2, .engine = &cost}, kSimStart);
  VectorSource source(steady(20, 600));
  serving.attach(source);
  sim.run_until(at(seconds(120)));
  serving.catch_up();

  const std::uint32_t held = serving.in_flight(1);
  REQUIRE(held > 5);
  serving.kill_replica(1);
  CHECK_FALSE(serving.has_replica(1));
  CHECK(counts.by_reason[DropReason::ReplicaKilled] >= held - 1);
  CHECK(counts.by_reason[DropReason::ReplicaKilled] <= held + 1);

  serving.begin_termination(2);
  CHECK(counts.drained.empty());  // it still holds requests
  sim.run_until(at(seconds(200)));
  REQUIRE(counts.drained.count(2) == 1);
  CHECK(counts.drained[2] > at(seconds(120)));
  CHECK_FALSE(serving.has_replica(2));
  // With no replica left, what arrives waits.
  serving.catch_up();
  CHECK(serving.counters().queued > 0);
}

TEST_CASE("fluid gauges share an instant's requests as the fewest-in-flight router does") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost), chat_mix(), sim.rng("gauges"));
  for (ReplicaId id : {1, 2, 3}) serving.add_replica({.id = id, .engine = &cost}, kSimStart);
  VectorSource source(steady(30, 600));
  serving.attach(source);
  for (int t = 60; t <= 300; t += 15) {
    sim.run_until(at(seconds(t)));
    serving.catch_up();
    const ReplicaLoad a = serving.load(1), b = serving.load(2), c = serving.load(3);
    INFO("at " << t << " s: " << a.running << " " << b.running << " " << c.running);
    CHECK(a.running >= b.running);  // the first N mod R replicas hold one more
    CHECK(b.running >= c.running);
    CHECK(a.running <= c.running + 1);
    CHECK(a.kv_cache_usage > 0);
    // The same instant reads the same.
    CHECK(serving.load(2).running == b.running);
  }
}

// A scrape's reads share one draw; a replica that turns Ready at the same instant takes its
// share of that draw at once (the draw is kept only while no replica changes).
TEST_CASE("a replica Ready at the instant of a read shares the same draw") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost), chat_mix(), sim.rng("gauges"));
  serving.add_replica({.id = 1, .engine = &cost}, kSimStart);
  serving.add_replica({.id = 2, .engine = &cost}, std::nullopt);  // Starting
  VectorSource source(steady(10, 600));
  serving.attach(source);
  sim.run_until(at(seconds(120)));
  serving.catch_up();
  const ReplicaLoad alone = serving.load(1);
  const std::uint32_t n = alone.running + alone.waiting;
  REQUIRE(n >= 4);
  CHECK(serving.load(2).running == 0);  // still starting
  serving.set_ready(2);                 // the same instant, holding nothing yet
  const ReplicaLoad a = serving.load(1), b = serving.load(2);
  CHECK(a.running + a.waiting + b.running + b.waiting == n);
  CHECK(a.running + a.waiting == (n + 1) / 2);  // the first N mod R hold one more
  CHECK(b.running + b.waiting == n / 2);
}

// What the observer heard at each instant: reports are made at a piece's end, one call for each
// representative request.
struct Reports final : ServingObserver {
  void on_request_done(const RequestOutcome& o) override { on_requests_done(o, 1); }
  void on_requests_done(const RequestOutcome& o, std::uint64_t) override { ++calls[o.completion]; }
  std::map<SimTime, int> calls;
};

// One H100 replica under `rps` requests a second for `seconds`, paced as asked, its reports heard.
// It keeps up with 20 a second; 200 a second keep requests waiting in the router's queue.
struct PacedReplica {
  PacedReplica(const StepCost& cost, FluidPacing pacing, int seconds, double rps = 20)
      : serving(sim, engine_config(cost), chat_mix(), sim.rng("gauges"), pacing),
        source(steady(rps, seconds)) {
    serving.set_observer(&reports);
    serving.add_replica({.id = 1, .engine = &cost}, kSimStart);
    serving.attach(source);
  }
  Simulation sim{1};
  FluidServing serving;
  Reports reports;
  VectorSource source;
};

// A 7 s scrape interval at a 2 s phase: while nothing waits, each piece is a whole interval (at
// most kCalmStep); while requests wait, the interval is cut in two parts of 3.5 s (at most
// kFluidStep each). Every piece ends on that grid, and a scrape at 9 s reads a piece's end
// instead of splitting one.
TEST_CASE("fluid pieces end at the scrapes and at even parts of the interval between them") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  const auto piece_ends = [&](double rps) {
    PacedReplica run(
        cost,
        {.anchor = at(seconds(2)), .scrape_interval = seconds(7), .report_interval = minutes(5)},
        60, rps);
    run.sim.run_until(at(seconds(9)));
    run.serving.catch_up();
    run.sim.run_until(at(seconds(30)));
    std::vector<SimTime> ends;
    for (const auto& [end, n] : run.reports.calls) ends.push_back(end);
    return ends;
  };
  CHECK(piece_ends(20) == std::vector<SimTime>{at(millis(2000)), at(millis(9000)),
                                               at(millis(16000)), at(millis(23000)),
                                               at(millis(30000))});
  // The replica's free slots take the first 9 s of arrivals; from then on requests wait.
  CHECK(piece_ends(200) == std::vector<SimTime>{at(millis(2000)), at(millis(9000)),
                                                at(millis(12500)), at(millis(16000)),
                                                at(millis(19500)), at(millis(23000)),
                                                at(millis(26500)), at(millis(30000))});
}

// 400 representatives per report interval, a piece's share by its length: 20 a calm piece of 15 s
// at 5-minute rows and 7 a piece of 5 s while requests wait; at 1-minute rows, the most, 3.2 a
// second (48 and 16). A piece here completes more requests than any of them.
TEST_CASE("a fluid report spreads its requests over representatives for the report interval") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  const auto calls_per_piece = [&](SimDuration report_interval, double rps) {
    PacedReplica run(cost, {.scrape_interval = seconds(15), .report_interval = report_interval},
                     120, rps);
    run.sim.run_until(at(seconds(60)));
    return run.reports.calls.at(at(seconds(60)));
  };
  CHECK(calls_per_piece(minutes(5), 20) == 20);
  CHECK(calls_per_piece(minutes(1), 20) == 48);
  CHECK(calls_per_piece(minutes(5), 200) == 7);
  CHECK(calls_per_piece(minutes(1), 200) == 16);
}

// Requests in flight on a fixed fleet under steady Poisson traffic are Poisson (M/G/∞): their
// variance over scrapes is their mean. The stocks already carry the arrival counts' noise, so a
// gauge draws only what the departures add to it (before, it drew a whole Poisson count around
// the stocks: 1.5 times the variance, which an HPA's stabilization window reads as more load).
TEST_CASE("fluid gauges vary over scrapes as the requests in flight do") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  FluidServing serving(sim, engine_config(cost), chat_mix(), sim.rng("gauges"));
  for (ReplicaId id : {1, 2, 3}) serving.add_replica({.id = id, .engine = &cost}, kSimStart);
  PoissonSource source(
      {.rps = 30,
       .tokens = {.input = TokenDistribution::fixed(512), .output = TokenDistribution::fixed(128)}},
      sim.rng("traffic"));
  serving.attach(source);
  double sum = 0, sum2 = 0, n = 0;
  for (int t = 600; t <= 6 * 3600; t += 15) {
    sim.run_until(at(seconds(t)));
    serving.catch_up();
    double total = 0;
    for (ReplicaId id : {1, 2, 3}) total += serving.load(id).running;
    sum += total;
    sum2 += total * total;
    n += 1;
  }
  const double mean = sum / n, variance = sum2 / n - mean * mean;
  INFO("mean " << mean << ", variance " << variance);
  CHECK(mean > 30);
  CHECK(variance / mean == Approx(1).margin(0.15));
}

}  // namespace
}  // namespace fleetsim
