#include "fleetsim/serving/serving_stats.hpp"

#include <algorithm>

namespace fleetsim {

ServingStats::ServingStats(SloThresholds slo, SimTime warmup_end, bool tokens)
    : slo_(slo), warmup_end_(warmup_end), tokens_(tokens) {}

void ServingStats::count_miss(bool ttft_over, bool e2e_over) {
  if (ttft_over) {
    ++totals_.ttft_misses;
  } else if (e2e_over) {
    ++totals_.e2e_misses;
  } else {
    return;
  }
  ++totals_.misses;
}

void ServingStats::on_request_done(const RequestOutcome& outcome) {
  ++interval_finished_;
  const double latency_s = to_seconds(outcome.latency());  // a division, done once
  if (outcome.arrival < warmup_end_) {
    if (!outcome.dropped) interval_e2e_.add(latency_s);
    return;
  }
  if (tokens_) totals_.first_arrival = std::min(totals_.first_arrival, outcome.arrival);
  if (outcome.dropped) {
    ++totals_.misses;
    ++totals_.dropped;
    totals_.dropped_in_flight += outcome.drop_reason == DropReason::ReplicaKilled;
    return;
  }
  count_miss(slo_.ttft && outcome.time_to_first_token() > *slo_.ttft,
             slo_.e2e && outcome.latency() > *slo_.e2e);
  ++totals_.served;
  LatencySketch::add(latency_s, totals_.e2e_s, interval_e2e_);
  totals_.ttft_s.add(to_seconds(outcome.time_to_first_token()));
  totals_.queue_s.add(to_seconds(outcome.wait()));
  if (!tokens_) return;
  if (outcome.output_tokens > 1) {
    totals_.tpot_s.add(to_seconds(outcome.completion - outcome.first_token) /
                       static_cast<double>(outcome.output_tokens - 1));
  }
  totals_.output_tokens += outcome.output_tokens;
  totals_.last_completion = std::max(totals_.last_completion, outcome.completion);
}

void ServingStats::judge_unfinished(SimTime arrival, std::optional<SimTime> first_token,
                                    SimTime end) {
  if (arrival < warmup_end_) return;
  ++totals_.unfinished;
  if (tokens_) totals_.first_arrival = std::min(totals_.first_arrival, arrival);
  count_miss(slo_.ttft && (first_token ? *first_token - arrival : end - arrival) > *slo_.ttft,
             slo_.e2e && end - arrival > *slo_.e2e);
}

void ServingStats::close_interval() {
  interval_finished_ = 0;
  interval_e2e_.clear();
}

}  // namespace fleetsim
