// One replica's engine in steady state, for the fluid serving mode: where continuous batching
// settles under a steady stream of requests, from the same step costs the request-level engine
// (EngineReplica) runs on, without simulating a request.
//
// The method is the pointwise-stationary approximation (Green, Kolesar & Svoronos, "Some effects
// of nonstationarity on multiserver Markovian queueing systems", Operations Research 39(3), 1991):
// at each instant the replica is taken to be at the steady state of its current arrival rate. The
// steady state of continuous batching follows from Little's law counted in engine steps: with n
// requests arriving per step, a request decoding for o − 1 steps after its prefill step keeps
// n × (E[o] − 1) sequences decoding, every step reads what they hold, and the steps' mean length
// s(n) then gives the rate n ÷ s(n) they serve (Kwon et al., "Efficient Memory Management for
// Large Language Model Serving with PagedAttention", SOSP 2023, for the engine; Agrawal et al.,
// "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", OSDI 2024, for the
// chunked, mixed steps).
//
// Where the KV cache cannot hold max_num_seqs of the mix's longest requests, the engine is also
// measured (kv_bound_table.hpp): its saturation, and where prompts wait for room, their time to
// first token, the running gauge and the preemptions, which then replace the closed forms'.
//
// FluidServing runs a service on it (`serving_mode: fluid`). Its accuracy against the
// request-level engine today (fluid_replica_test.cpp): saturation within 2 %; TTFT within 15 % at
// 30 % load and 30 % at 60 %, its p99 at 30 % 14-18 % short; per-token and end-to-end times
// within 15 %; where prompts wait for KV room, the measured TTFT's median within 10 % and its
// p95 and p99 within 20 %.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/serving/kv_bound_table.hpp"
#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim {

// A service's request lengths as representative samples (its token distributions drawn once), and
// the moments the steady state reads.
class RequestMix {
 public:
  struct Lengths {
    std::uint32_t prompt = 0;
    std::uint32_t output = 1;
  };
  // At least one sample; outputs below 1 count as 1 (the engine always yields a token).
  explicit RequestMix(std::vector<Lengths> samples);

  // Sorted by output length, then prompt.
  std::span<const Lengths> samples() const { return samples_; }
  // The sample at quantile u in [0, 1) of that order: evenly spread u's give evenly spread
  // output lengths, where cycling through the samples gave a random subset.
  const Lengths& at_quantile(double u) const {
    const auto i = static_cast<std::size_t>(u * static_cast<double>(samples_.size()));
    return samples_[std::min(i, samples_.size() - 1)];
  }
  double prompt() const { return prompt_; }              // E[i]
  double decode_steps() const { return decode_steps_; }  // E[o − 1]
  // E[Σ over a request's decode steps of the context it reads] = E[(o − 1) i + o (o − 1) ÷ 2].
  double decode_context() const { return decode_context_; }
  // E[Σ over a prompt's tokens of their position] ≈ E[i²] ÷ 2 (one chunk).
  double prefill_context() const { return prefill_context_; }
  // The output lengths' squared coefficient of variation: Var[o] ÷ E[o]².
  double output_cv2() const { return output_cv2_; }
  // An arrival that lands in a step whose length is b0 + b1 × i for a prompt i of the mix: the
  // rest of that step at quantile v in [0, 1) of the renewal residual, whose distribution is
  // P(R > r) = E[(B − r)+] ÷ E[B] (the step it lands in is size-biased, the point in it uniform),
  // and that step's mean length given its rest, E[B | B > R]. b0, b1 ≥ 0.
  struct Landing {
    double rest = 0;
    double step = 0;
  };
  Landing residual_quantile(double b0, double b1, double v) const;
  // E[Σ over the steps a request runs of the KV blocks it holds], in tokens: its prompt and the
  // tokens it has written, each step, rounded up to whole blocks on average.
  double held_token_steps(double block_tokens, bool reserve_output) const;

 private:
  std::vector<Lengths> samples_;
  std::vector<double> prompts_;      // ascending
  std::vector<double> prompt_tail_;  // prompt_tail_[k] = Σ prompts_[k..]
  double prompt_ = 0;
  double decode_steps_ = 0;
  double decode_context_ = 0;
  double prefill_context_ = 0;
  double output_cv2_ = 0;
};

// The value of a Poisson distribution with this mean at quantile u in [0, 1): inversion below a
// mean of 30, the normal approximation with a continuity correction above.
double poisson_quantile(double mean, double u);
// A count with this mean and variance at quantile u: Poisson when the variance is the mean or
// more, else the binomial with that mean and variance (n whole).
double count_quantile(double mean, double variance, double u);

// The replica's steady state at one arrival rate.
struct OperatingPoint {
  double arrivals_per_step = 0;  // n
  double rate = 0;               // requests per second served: n ÷ step_seconds
  double step_seconds = 0;       // between two tokens of a decoding sequence: s(n)
  double running = 0;            // admitted sequences, prefilling or decoding (vLLM's gauge)
  double kv_usage = 0;           // share of the KV cache's blocks in use
  // Share of the steps that carry a prompt (in steps of their own, when steps are not mixed).
  double prefill_share = 0;
  double decode_step_seconds = 0;  // a step without a prompt
  double prompt_step_seconds = 0;  // a step with one (its prompts alone, if not mixed)
  // What every request's TTFT at this point reads, computed once with it (FluidReplica).
  double busy = 0;              // busy_share
  double residual_seconds = 0;  // the mean rest of the step under way at an arrival
  double prefill_room = 0;      // prompt tokens a step takes
  double prompts_ahead = 0;     // prompts that arrive during the step a request waits out
  StepWork beside_prefill;      // the decodes a prompt's steps carry (mixed steps)
  // A prompt step's seconds grow with its prompt i as prompt_step_seconds + per_prompt_token ×
  // (i − E[i]): an arrival landing in one waits out the rest of a size-biased prompt's step.
  double per_prompt_token = 0;
};

class FluidReplica {
 public:
  // `cost` and `mix` must outlive it.
  FluidReplica(const StepCost& cost, const RequestMix& mix);

  // The most the replica serves: the arrival rate at which max_num_seqs, the KV cache or the
  // step's token budget binds (the served rate grows with the batch up to there).
  const OperatingPoint& saturation() const { return saturation_; }
  // The steady state at `rate` requests per second, at most saturation().rate.
  OperatingPoint at_rate(double rate) const;
  // `recomputed`: the prompts prefilled again per arrival, after a preemption.
  OperatingPoint at_arrivals_per_step(double n, double recomputed = 0) const;

  // The time to first token of a request with this prompt at the operating point: the rest of the
  // step under way when it arrives (if the engine is busy), then the steps its prompt takes. The
  // mean, and with the rest of the step at its quantile `u` in [0, 1), where `overlap` scales the
  // chance that it lands in another prompt's step and that prompts join its own (1 for Poisson
  // arrivals; jsq_prompt_overlap behind the router).
  double time_to_first_token(std::uint32_t prompt, const OperatingPoint& at) const;
  double time_to_first_token(std::uint32_t prompt, const OperatingPoint& at, double u,
                             double overlap = 1) const;
  // The seconds after the first token until the last, at quantile `u` of the number of steps
  // with a prompt among its output − 1 decode steps (Poisson, each the longer step; `overlap`
  // scales their mean: jsq_decode_overlap behind the router).
  double decode_seconds(std::uint32_t output, const OperatingPoint& at, double u,
                        double overlap = 1) const;
  // The share of time the engine has a request in flight (DCGM's GPU utilization), taking the
  // requests in flight as Poisson-distributed (an infinite-server queue: M/G/∞).
  double busy_share(const OperatingPoint& at) const { return at.busy; }
  // Mean seconds a request spends in the engine at the operating point; and where the engine is
  // measured, with its time to first token at `load` requests per second (the arrival rate
  // smoothed, which varies less than the operating point's) and `replicas` Ready behind the
  // router.
  double mean_latency(const OperatingPoint& at) const;
  double mean_latency(const OperatingPoint& at, double load, double replicas) const;
  // Where prompts wait for KV room, the engine measured: its times to first token, the router's
  // wait, the running gauge and the preemptions. Empty elsewhere.
  const KvBoundTable& measured() const { return measured_; }

  const StepCost& cost() const { return cost_; }
  const RequestMix& mix() const { return mix_; }

 private:
  StepWork decode_work(double n) const;
  double compute_busy_share(const OperatingPoint& at) const;
  double residual_step(const OperatingPoint& at) const;
  RequestMix::Landing residual_quantile(const OperatingPoint& at, double u, double overlap) const;
  double prefill_seconds(std::uint32_t prompt, double prompts_beside,
                         const OperatingPoint& at) const;
  bool feasible(double n) const;
  double preemptions_per_arrival(const OperatingPoint& full) const;

  const StepCost& cost_;
  const RequestMix& mix_;
  double budget_ = 0;            // tokens per step
  double capacity_ = 0;          // KV cache tokens (whole blocks)
  double held_per_arrival_ = 0;  // token-steps of KV a request holds (RequestMix)
  OperatingPoint saturation_;
  static constexpr std::size_t kTablePoints = 256;
  std::vector<double> table_n_, table_rate_;  // at_rate's table: n and the rate it serves
  KvBoundTable measured_;
};

}  // namespace fleetsim
