#include "fleetsim/serving/serving_stats.hpp"

#include <algorithm>
#include <type_traits>

namespace fleetsim {

ServingStats::ServingStats(SloThresholds slo, SimTime warmup_end, bool tokens)
    : slo_(slo), warmup_end_(warmup_end), tokens_(tokens) {}

void ServingStats::count_miss(bool ttft_over, bool e2e_over, std::uint64_t count) {
  if (ttft_over) {
    totals_.ttft_misses += count;
  } else if (e2e_over) {
    totals_.e2e_misses += count;
  } else {
    return;
  }
  totals_.misses += count;
}

void ServingStats::on_request_done(const RequestOutcome& outcome) {
  record(outcome, std::integral_constant<std::uint64_t, 1>{});
}

void ServingStats::on_requests_done(const RequestOutcome& outcome, std::uint64_t count) {
  record(outcome, count);
}

template <typename Count>
void ServingStats::record(const RequestOutcome& outcome, Count count) {
  interval_finished_ += count;
  const double latency_s = to_seconds(outcome.latency());  // a division, done once
  if (outcome.arrival < warmup_end_) {
    if (!outcome.dropped) interval_e2e_.add(latency_s, count);
    return;
  }
  if (tokens_) totals_.first_arrival = std::min(totals_.first_arrival, outcome.arrival);
  if (outcome.dropped) {
    totals_.misses += count;
    totals_.dropped += count;
    if (outcome.drop_reason == DropReason::ReplicaKilled) totals_.dropped_in_flight += count;
    return;
  }
  count_miss(slo_.ttft && outcome.time_to_first_token() > *slo_.ttft,
             slo_.e2e && outcome.latency() > *slo_.e2e, count);
  totals_.served += count;
  LatencySketch::add(latency_s, count, totals_.e2e_s, interval_e2e_);
  totals_.ttft_s.add(to_seconds(outcome.time_to_first_token()), count);
  totals_.queue_s.add(to_seconds(outcome.wait()), count);
  if (!tokens_) return;
  if (outcome.output_tokens > 1) {
    totals_.tpot_s.add(to_seconds(outcome.completion - outcome.first_token) /
                           static_cast<double>(outcome.output_tokens - 1),
                       count);
  }
  totals_.output_tokens += std::uint64_t{outcome.output_tokens} * count;
  totals_.last_completion = std::max(totals_.last_completion, outcome.completion);
}

void ServingStats::judge_unfinished(SimTime arrival, std::optional<SimTime> first_token,
                                    SimTime end, std::uint64_t count) {
  if (arrival < warmup_end_) return;
  totals_.unfinished += count;
  if (tokens_) totals_.first_arrival = std::min(totals_.first_arrival, arrival);
  count_miss(slo_.ttft && (first_token ? *first_token - arrival : end - arrival) > *slo_.ttft,
             slo_.e2e && end - arrival > *slo_.e2e, count);
}

void ServingStats::close_interval() {
  interval_finished_ = 0;
  interval_e2e_.clear();
}

}  // namespace fleetsim
