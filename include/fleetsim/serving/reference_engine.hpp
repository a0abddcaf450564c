// The engine of one replica run one step at a time: the definition EngineReplica's closed form
// is held to (tests and benchmarks only; a run would pay an event per step). And EngineReplica
// driven without a simulation: in tests, in `fleetsim serving-table` and in the fluid mode's
// measured tables (KvBoundTable).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim {

struct EngineRequest {
  double arrival = 0;  // seconds; requests are given in arrival order
  std::uint32_t prompt = 0;
  std::uint32_t output = 0;
};

struct EngineOutcome {
  double first_token = 0;  // seconds
  double finished = 0;
  bool rejected = false;  // longer than the KV cache holds
  double dispatched = 0;  // when the router sent it to a replica (run_routed_engines)
};

struct EngineRunStats {
  std::uint64_t steps = 0;
  std::uint64_t preemptions = 0;
  std::uint32_t peak_running = 0;
  // run_routed_engines's: the seconds a replica held n requests of which k ran (the rest waited
  // for KV room), at [n][k], as far as the run reached.
  std::vector<std::vector<double>> holding_seconds;
};

// Each step: admit waiting requests first come, first served while max_num_seqs and the KV cache
// allow and, with chunked prefill, while the step has tokens left (vLLM V1); then batch one token
// of every decoding sequence and, in the token budget left, prompt chunks in admission order
// (in steps that are not mixed, EngineLimits::mixed_steps: steps of prompt tokens only, up to
// the budget, before any decode);
// allocate the step's KV blocks, preempting the newest sequence while they do not fit; the step
// takes StepCost::seconds; at its end a finished prompt yields its first token and a sequence that
// produced its last token leaves. Blocks are whole: ⌈tokens ÷ block⌉.
std::vector<EngineOutcome> run_reference_engine(const StepCost& cost,
                                                std::span<const EngineRequest> requests,
                                                EngineRunStats* stats = nullptr);

// The same requests through EngineReplica, driven from its milestones: what tests compare.
std::vector<EngineOutcome> run_closed_form_engine(const StepCost& cost,
                                                  std::span<const EngineRequest> requests,
                                                  EngineRunStats* stats = nullptr);

// The same through `replicas` EngineReplicas behind the request level's router (ServingModel):
// each request to the replica with the fewest in flight, the first among equals, while it holds
// fewer than max_num_seqs; the rest wait in the router's queue.
std::vector<EngineOutcome> run_routed_engines(const StepCost& cost, std::uint32_t replicas,
                                              std::span<const EngineRequest> requests,
                                              EngineRunStats* stats = nullptr);

// A closed loop of `users` users with no think time (vLLM's benchmark --max-concurrency,
// genai-perf's and AIPerf's concurrency) through EngineReplica: the first `users` requests are
// sent at 0 and each later one the moment an earlier one ends. Each request's arrival is set to
// when it was sent.
std::vector<EngineOutcome> run_closed_loop_engine(const StepCost& cost, std::uint32_t users,
                                                  std::span<EngineRequest> requests,
                                                  EngineRunStats* stats = nullptr);

}  // namespace fleetsim
