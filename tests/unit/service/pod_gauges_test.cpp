// What a serving pod's vLLM exporter shows, with and without the engine model.
#include "fleetsim/service/pod_gauges.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "unit/serving/engine_fixtures.hpp"

namespace fleetsim {
namespace {

TEST_CASE(
    "under the engine model a pod's gauges are its engine's, its waiting beside its queue share",
    "[service]") {
  EngineOptions options;
  options.max_num_seqs = 4;
  options.max_num_batched_tokens = 16384;  // a step holds two of the prompts below
  const StepCost cost = test::step_cost(test::llama_8b(), test::a10g(), 1, options);
  Simulation sim(1);
  ServingModel model(sim, {.concurrency = 4, .service_time = EngineServiceTime{}},
                     sim.rng("serving"));
  model.add_replica({.id = 3, .engine = &cost}, kSimStart);
  // Prompts of 40% of the KV cache each: the engine admits two, holds two for KV room, and the
  // router keeps the last two.
  const auto prompt = static_cast<std::uint32_t>(cost.kv_capacity_tokens() * 4 / 10);
  for (int i = 0; i < 6; ++i) model.arrive(prompt, 100);
  REQUIRE(model.counters().queued == 2);
  const ReplicaLoad load = model.load(3);
  REQUIRE(load.running == 2);
  REQUIRE(load.waiting == 2);

  const PodGauges g = pod_gauges(model, 3, /*engine=*/true, model.counters().queued);
  CHECK(g.running == 2.0);
  CHECK(g.waiting == 4.0);  // two in the engine, two in the router's queue
  REQUIRE(g.kv_cache_usage.has_value());
  CHECK(*g.kv_cache_usage == load.kv_cache_usage);

  // Once prefills run, the two admitted prompts hold their blocks.
  sim.run_until(at(seconds(1)));
  const PodGauges later = pod_gauges(model, 3, /*engine=*/true, 0);
  REQUIRE(later.kv_cache_usage.has_value());
  CHECK(*later.kv_cache_usage == model.load(3).kv_cache_usage);
  CHECK(*later.kv_cache_usage > 0.0);
  CHECK(*later.kv_cache_usage <= 1.0);
}

TEST_CASE("without the engine model every request on a replica runs and no KV use is exported",
          "[service]") {
  Simulation sim(1);
  ServingModel model(sim,
                     {.concurrency = 2, .service_time = FixedServiceTime{.duration = seconds(10)}},
                     sim.rng("serving"));
  model.add_replica({.id = 5}, kSimStart);
  for (int i = 0; i < 5; ++i) model.arrive(100, 100);
  const PodGauges g = pod_gauges(model, 5, /*engine=*/false, 3);
  CHECK(g.running == 2.0);
  CHECK(g.waiting == 3.0);
  CHECK_FALSE(g.kv_cache_usage.has_value());
}

}  // namespace
}  // namespace fleetsim
