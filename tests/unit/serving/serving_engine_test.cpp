// ServingModel under the engine model: the router in front of each replica's EngineReplica, on
// the simulation's clock.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/reference_engine.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "unit/serving/engine_fixtures.hpp"

namespace fleetsim {
namespace {

class Recorder final : public ServingObserver {
 public:
  void on_request_done(const RequestOutcome& outcome) override { outcomes.push_back(outcome); }
  std::vector<RequestOutcome> outcomes;
};

class Arrivals final : public TrafficSource {
 public:
  explicit Arrivals(std::vector<Request> requests) : requests_(std::move(requests)) {}
  std::optional<Request> next() override {
    if (next_ == requests_.size()) return std::nullopt;
    return requests_[next_++];
  }

 private:
  std::vector<Request> requests_;
  std::size_t next_ = 0;
};

ServingConfig engine_config(std::uint32_t slots) {
  return {.concurrency = slots, .service_time = EngineServiceTime{}};
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
  Arrivals source(requests);
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

TEST_CASE("the router keeps at most max_num_seqs requests on an engine replica", "[serving]") {
  EngineOptions options;
  options.max_num_seqs = 4;
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100(), 1, options);
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
