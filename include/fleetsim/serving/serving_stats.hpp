// A service's latency-SLO statistics (DESIGN.md §7 `sla.*`): counts, misses and latency sketches
// over the run after warmup, and over the current report interval.
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/core/latency_sketch.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/serving/serving_model.hpp"

namespace fleetsim {

struct SloThresholds {
  std::optional<SimDuration> ttft;  // time to first token
  std::optional<SimDuration> e2e;   // arrival to completion
};

// Totals over the requests that arrived at or after the warmup's end.
struct SloTotals {
  std::uint64_t served = 0;
  std::uint64_t dropped = 0;
  // Of the dropped, those cut off in flight: their replica's node went away before they
  // finished (a spot instance's two-minute mark, or a drain's grace running out).
  std::uint64_t dropped_in_flight = 0;
  std::uint64_t unfinished = 0;  // queued or in flight at the end
  std::uint64_t misses = 0;      // dropped, over a threshold, or unfinished and past one
  // The misses that were not drops, split so they add up: misses = dropped + ttft_misses +
  // e2e_misses. A request over both thresholds is a TTFT miss (its first token was already late).
  std::uint64_t ttft_misses = 0;  // over the TTFT threshold (served, or unfinished and past it)
  std::uint64_t e2e_misses = 0;   // within the TTFT threshold (or none) but over the e2e one
  LatencySketch e2e_s;            // served requests: arrival to completion, in seconds
  LatencySketch ttft_s;           // served requests: arrival to first token, in seconds
  // Served requests with more than one output token: (completion - first token) / (output
  // tokens - 1), in seconds (vLLM's and trtllm-bench's TPOT).
  LatencySketch tpot_s;
  // Served requests: arrival to leaving the router's queue for a replica, in seconds. Under the
  // engine model the time a request then waits inside its replica's engine for KV-cache room is
  // not in it: it shows in the TTFT (as in vLLM, whose queue time is its own scheduler's).
  LatencySketch queue_s;
  std::uint64_t output_tokens = 0;  // of the served requests
  // The measured window as benchmarks count throughput: the first arrival of a request counted
  // here (served, dropped or unfinished) to the last completion of a served one. Empty when the
  // first is not before the last. These three stay empty for services that do not time tokens.
  SimTime first_arrival = SimTime::max();
  SimTime last_completion = SimTime::min();
};

class ServingStats final : public ServingObserver {
 public:
  // `tokens`: the service times tokens (the LLM and engine models), so TPOT, output tokens and
  // the throughput window are recorded; other service times leave them empty.
  ServingStats(SloThresholds slo, SimTime warmup_end, bool tokens = true);

  void on_request_done(const RequestOutcome& outcome) override;
  // `count` requests with this outcome (the fluid serving mode's representative requests).
  void on_requests_done(const RequestOutcome& outcome, std::uint64_t count) override;

  // A request still queued or in flight when the run ends: counted as unfinished, and a miss if
  // it has already waited past a threshold (it can only finish later still).
  void judge_unfinished(SimTime arrival, std::optional<SimTime> first_token, SimTime end,
                        std::uint64_t count = 1);

  const SloTotals& totals() const { return totals_; }
  // After judge_unfinished for every unfinished request: requests = served + dropped + unfinished.
  std::uint64_t requests() const { return totals_.served + totals_.dropped + totals_.unfinished; }

  // The current report interval: requests finished in it (whatever their arrival) and their
  // latencies. close_interval starts the next one.
  std::uint64_t interval_finished() const { return interval_finished_; }
  const LatencySketch& interval_e2e_s() const { return interval_e2e_; }
  void close_interval();

 private:
  // One body for both: with a count of 1 known at compile time, the request level's path
  // multiplies and converts nothing.
  template <typename Count>
  void record(const RequestOutcome& outcome, Count count);
  // A request's miss, if any, counted into totals_ (dropped ones are counted by the caller).
  void count_miss(bool ttft_over, bool e2e_over, std::uint64_t count);

  SloThresholds slo_;
  SimTime warmup_end_;
  bool tokens_;
  SloTotals totals_;
  std::uint64_t interval_finished_ = 0;
  LatencySketch interval_e2e_;
};

}  // namespace fleetsim
