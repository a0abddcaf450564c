// ServingModel under the engine model: the router in front of each replica's EngineReplica, on
// the simulation's clock.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/reference_engine.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "unit/serving/engine_fixtures.hpp"
#include "unit/serving/serving_fixtures.hpp"

namespace fleetsim {
namespace {

using test::Recorder;
using test::VectorSource;

ServingConfig engine_config(std::uint32_t slots) {
  return {.concurrency = slots, .service_time = EngineServiceTime{}};
}

// An engine that four requests fill.
StepCost four_sequences(const GpuHardware& gpu) {
  EngineOptions options;
  options.max_num_seqs = 4;
  return test::step_cost(test::llama_8b(), gpu, 1, options);
}

TEST_CASE("one engine replica serves as the closed-form engine does, to the microsecond",
          "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  std::vector<Request> requests;
  std::vector<EngineRequest> same;
  for (int i = 0; i < 200; ++i) {
    const SimTime t = at(millis(37 * i));
    const auto prompt = static_cast<std::uint32_t>(200 + (i * 97) % 1800);
    const auto output = static_cast<std::uint32_t>(20 + (i * 31) % 300);
    requests.push_back({.arrival = t, .input_tokens = prompt, .output_tokens = output});
    same.push_back({.arrival = to_seconds(t), .prompt = prompt, .output = output});
  }
  const std::vector<EngineOutcome> expected = run_closed_form_engine(cost, same);

  Simulation sim(1);
  ServingModel model(sim, engine_config(cost.limits().max_num_seqs), sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1, .engine = &cost}, kSimStart);
  VectorSource source(requests);
  model.attach(source);
  sim.run_until(at(seconds(600)));

  REQUIRE(recorder.outcomes.size() == requests.size());
  for (const RequestOutcome& o : recorder.outcomes) {
    const auto i = static_cast<std::size_t>(o.arrival.time_since_epoch().count() / 37'000);
    INFO("request " << i);
    CHECK_FALSE(o.dropped);
    CHECK(std::abs(to_seconds(o.first_token) - expected[i].first_token) <= 1e-6);
    CHECK(std::abs(to_seconds(o.completion) - expected[i].finished) <= 1e-6);
  }
  const EngineTotals totals = model.engine_totals();
  CHECK(totals.preemptions == 0);
  CHECK(totals.peak_running > 1);
  CHECK(totals.peak_kv_cache_usage > 0);
}

// Behind a queue, a request the router sends when a sequence finishes joins the engine at that
// step's end, as run_routed_engines (which the fluid mode measures engines with) sends it; a
// microsecond later, the milestone's event rounded up, it would wait a whole step more.
TEST_CASE("engine replicas behind a queue serve as run_routed_engines does to the microsecond",
          "[serving]") {
  const StepCost cost = four_sequences(test::a10g());
  std::vector<Request> requests;
  std::vector<EngineRequest> same;
  for (int i = 0; i < 300; ++i) {
    const SimTime t = at(millis(60 * i + 1));  // about twice what two replicas serve
    const auto prompt = static_cast<std::uint32_t>(100 + (i * 97) % 900);
    const auto output = static_cast<std::uint32_t>(10 + (i * 31) % 120);
    requests.push_back({.arrival = t, .input_tokens = prompt, .output_tokens = output});
    same.push_back({.arrival = to_seconds(t), .prompt = prompt, .output = output});
  }
  const std::vector<EngineOutcome> expected = run_routed_engines(cost, 2, same);

  Simulation sim(1);
  ServingModel model(sim, engine_config(4), sim.rng("serving"));
  model.report_lazily();
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1, .engine = &cost}, kSimStart);
  model.add_replica({.id = 2, .engine = &cost}, kSimStart);
  VectorSource source(requests);
  model.attach(source);
  sim.run_until(at(seconds(600)));
  model.catch_up();

  REQUIRE(recorder.outcomes.size() == requests.size());
  double last = 0;
  for (const RequestOutcome& o : recorder.outcomes) {
    const auto i = static_cast<std::size_t>((o.arrival.time_since_epoch().count() - 1000) / 60'000);
    INFO("request " << i);
    CHECK_FALSE(o.dropped);
    CHECK(std::abs(to_seconds(o.first_token) - expected[i].first_token) <= 2e-6);
    CHECK(std::abs(to_seconds(o.completion) - expected[i].finished) <= 2e-6);
    last = std::max(last, to_seconds(o.completion));
  }
  CHECK(last > 2 * to_seconds(requests.back().arrival));  // the queue held most of them
}

TEST_CASE("the router keeps at most max_num_seqs requests on an engine replica", "[serving]") {
  const StepCost cost = four_sequences(test::h100());
  Simulation sim(1);
  ServingModel model(sim, engine_config(4), sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 7, .engine = &cost}, kSimStart);
  for (int i = 0; i < 10; ++i) model.arrive(500, 200);
  CHECK(model.in_flight(7) == 4);
  CHECK(model.counters().queued == 6);
  const ReplicaLoad load = model.load(7);
  CHECK(load.running == 4);
  CHECK(load.waiting == 0);
  sim.run_until(at(seconds(100)));
  CHECK(model.counters().served == 10);
  CHECK(model.engine_totals().peak_running == 4);
}

TEST_CASE("an engine replica killed drops what it held, one that drains finishes it", "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  Simulation sim(1);
  ServingModel model(sim, engine_config(cost.limits().max_num_seqs), sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1, .engine = &cost}, kSimStart);
  model.add_replica({.id = 2, .engine = &cost}, kSimStart);
  for (int i = 0; i < 6; ++i) model.arrive(1000, 500);
  sim.run_until(at(millis(500)));
  model.kill_replica(1);
  model.begin_termination(2);
  sim.run_until(at(seconds(60)));
  REQUIRE(recorder.outcomes.size() == 6);
  int killed = 0, served = 0;
  for (const RequestOutcome& o : recorder.outcomes) {
    if (o.dropped) {
      CHECK(o.drop_reason == DropReason::ReplicaKilled);
      CHECK(o.completion == at(millis(500)));
      ++killed;
    } else {
      CHECK(o.replica == 2);
      ++served;
    }
  }
  CHECK(killed == 3);
  CHECK(served == 3);
  CHECK(model.replica_count() == 0);
}

// Three replicas of four slots under bursts that queue, one drained and one killed mid-run: every
// request ends exactly as when each milestone is an event, and a scrape reads the same gauges.
TEST_CASE("engines that report lazily serve every request exactly as on time and save events",
          "[serving]") {
  const StepCost cost = four_sequences(test::h100());
  std::vector<Request> requests;
  for (int i = 0; i < 400; ++i) {
    // A burst of 20 every 3 s, then a request every 150 ms: queueing, then a light load whose
    // requests finish between arrivals.
    const SimTime t = i < 200 ? at(millis(3000 * (i / 20) + 7 * (i % 20) + 1))
                              : at(millis(30'000 + 150 * (i - 200) + 1));
    requests.push_back({.arrival = t,
                        .input_tokens = static_cast<std::uint32_t>(100 + (i * 97) % 900),
                        .output_tokens = static_cast<std::uint32_t>(10 + (i * 31) % 120)});
  }
  struct Run {
    std::vector<RequestOutcome> outcomes;
    std::uint64_t events = 0;
    std::uint64_t served_at_scrape = 0;
    ReplicaLoad load_at_scrape;
  };
  auto run = [&](bool lazy) {
    Simulation sim(1);
    ServingModel model(sim, engine_config(4), sim.rng("serving"));
    Recorder recorder;
    model.set_observer(&recorder);
    if (lazy) model.report_lazily();
    for (ReplicaId id = 1; id <= 3; ++id) model.add_replica({.id = id, .engine = &cost}, kSimStart);
    VectorSource source(requests);
    model.attach(source);
    Run r;
    sim.run_until(at(millis(31'234)));
    model.catch_up();
    r.served_at_scrape = model.counters().served;
    r.load_at_scrape = model.load(2);
    sim.run_until(at(seconds(35)));
    model.begin_termination(1);
    sim.run_until(at(millis(38'390)));
    model.kill_replica(2);
    sim.run_until(at(seconds(120)));
    model.catch_up();
    r.outcomes = recorder.outcomes;
    std::sort(r.outcomes.begin(), r.outcomes.end(), [](const auto& a, const auto& b) {
      return std::tie(a.arrival, a.input_tokens) < std::tie(b.arrival, b.input_tokens);
    });
    r.events = sim.events_processed();
    return r;
  };
  const Run on_time = run(false);
  const Run lazy = run(true);
  REQUIRE(on_time.outcomes.size() == requests.size());
  REQUIRE(lazy.outcomes.size() == requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    INFO("request " << i);
    const RequestOutcome& a = on_time.outcomes[i];
    const RequestOutcome& b = lazy.outcomes[i];
    CHECK(a.start == b.start);
    CHECK(a.first_token == b.first_token);
    CHECK(a.completion == b.completion);
    CHECK(a.replica == b.replica);
    CHECK(a.drop_reason == b.drop_reason);
  }
  CHECK(lazy.served_at_scrape == on_time.served_at_scrape);
  CHECK(lazy.load_at_scrape.running == on_time.load_at_scrape.running);
  CHECK(lazy.load_at_scrape.kv_cache_usage == on_time.load_at_scrape.kv_cache_usage);
  CHECK(std::count_if(lazy.outcomes.begin(), lazy.outcomes.end(), [](const auto& o) {
          return o.drop_reason == DropReason::ReplicaKilled;
        }) > 0);
  CHECK(lazy.events < on_time.events * 4 / 5);
}

TEST_CASE("a request longer than the KV cache holds is dropped as vLLM refuses it", "[serving]") {
  const StepCost cost = test::step_cost(test::llama_8b(), test::a10g());
  Simulation sim(1);
  ServingModel model(sim, engine_config(cost.limits().max_num_seqs), sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1, .engine = &cost}, kSimStart);
  const auto too_long = static_cast<std::uint32_t>(cost.kv_capacity_tokens());
  model.arrive(too_long, 10);
  model.arrive(100, 10);
  sim.run_until(at(seconds(10)));
  REQUIRE(recorder.outcomes.size() == 2);
  CHECK(recorder.outcomes[0].dropped);
  CHECK(recorder.outcomes[0].drop_reason == DropReason::TooLong);
  CHECK_FALSE(recorder.outcomes[1].dropped);
}

}  // namespace
}  // namespace fleetsim
