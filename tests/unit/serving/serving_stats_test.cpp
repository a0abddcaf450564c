#include "fleetsim/serving/serving_stats.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

namespace {

RequestOutcome served(SimDuration arrival, SimDuration ttft, SimDuration latency) {
  return {.arrival = at(arrival),
          .start = at(arrival),
          .first_token = at(arrival + ttft),
          .completion = at(arrival + latency)};
}

}  // namespace

TEST_CASE("a request over either threshold, or dropped, is a miss", "[serving]") {
  ServingStats stats({.ttft = millis(500), .e2e = seconds(10)}, kSimStart);
  stats.on_request_done(served(seconds(1), millis(400), seconds(9)));   // within both
  stats.on_request_done(served(seconds(2), millis(600), seconds(9)));   // slow first token
  stats.on_request_done(served(seconds(3), millis(100), seconds(11)));  // slow end to end
  RequestOutcome dropped{.arrival = at(seconds(4)),
                         .start = at(seconds(5)),
                         .first_token = at(seconds(5)),
                         .completion = at(seconds(5)),
                         .dropped = true,
                         .drop_reason = DropReason::QueueTimeout};
  stats.on_request_done(dropped);
  CHECK(stats.totals().served == 3);
  CHECK(stats.totals().dropped == 1);
  CHECK(stats.totals().misses == 3);
  CHECK(stats.totals().e2e_s.count() == 3);
  CHECK(stats.totals().e2e_s.max() == 11.0);
  CHECK(stats.totals().ttft_s.min() == 0.1);
}

TEST_CASE("requests that arrived during warmup are not counted", "[serving]") {
  ServingStats stats({.e2e = seconds(1)}, at(seconds(60)));
  stats.on_request_done(served(seconds(59), millis(1), seconds(5)));
  stats.on_request_done(served(seconds(60), millis(1), seconds(5)));
  CHECK(stats.totals().served == 1);
  CHECK(stats.totals().misses == 1);
  // The interval view counts every request that finished in it.
  CHECK(stats.interval_finished() == 2);
  stats.close_interval();
  CHECK(stats.interval_finished() == 0);
  CHECK(stats.interval_e2e_s().count() == 0);
}

TEST_CASE("an unfinished request is a miss once it is past a threshold", "[serving]") {
  ServingStats stats({.ttft = seconds(2), .e2e = seconds(30)}, kSimStart);
  const SimTime end = at(seconds(100));
  stats.judge_unfinished(at(seconds(99)), std::nullopt, end);     // 1 s in the queue: not yet
  stats.judge_unfinished(at(seconds(97)), std::nullopt, end);     // 3 s without a token
  stats.judge_unfinished(at(seconds(90)), at(seconds(91)), end);  // first token in time, 10 s in
  stats.judge_unfinished(at(seconds(60)), at(seconds(61)), end);  // 40 s: past e2e
  CHECK(stats.totals().unfinished == 4);
  CHECK(stats.totals().misses == 2);
  CHECK(stats.requests() == 4);
}

TEST_CASE("requests cut off when their replica's node goes count apart among the dropped",
          "[serving]") {
  ServingStats stats({.e2e = seconds(10)}, kSimStart);
  RequestOutcome cut{.arrival = at(seconds(1)),
                     .start = at(seconds(1)),
                     .first_token = at(seconds(2)),
                     .completion = at(seconds(3)),
                     .dropped = true,
                     .drop_reason = DropReason::ReplicaKilled};
  RequestOutcome timed_out = cut;
  timed_out.drop_reason = DropReason::QueueTimeout;
  stats.on_request_done(cut);
  stats.on_request_done(timed_out);
  CHECK(stats.totals().dropped == 2);
  CHECK(stats.totals().dropped_in_flight == 1);
  CHECK(stats.totals().misses == 2);
}

TEST_CASE("misses split into drops, TTFT misses and end-to-end misses that add up", "[serving]") {
  ServingStats stats({.ttft = millis(500), .e2e = seconds(10)}, kSimStart);
  stats.on_request_done(served(seconds(1), millis(400), seconds(9)));   // within both
  stats.on_request_done(served(seconds(2), millis(600), seconds(9)));   // TTFT
  stats.on_request_done(served(seconds(3), millis(700), seconds(12)));  // both: a TTFT miss
  stats.on_request_done(served(seconds(4), millis(100), seconds(11)));  // e2e
  stats.on_request_done({.arrival = at(seconds(5)),
                         .start = at(seconds(5)),
                         .first_token = at(seconds(5)),
                         .completion = at(seconds(6)),
                         .dropped = true,
                         .drop_reason = DropReason::QueueTimeout});
  const SimTime end = at(seconds(100));
  stats.judge_unfinished(at(seconds(97)), std::nullopt, end);     // 3 s without a token: TTFT
  stats.judge_unfinished(at(seconds(80)), at(seconds(80)), end);  // token in time, 20 s: e2e
  stats.judge_unfinished(at(millis(99'800)), std::nullopt, end);  // 200 ms: not yet a miss
  const SloTotals& t = stats.totals();
  CHECK(t.ttft_misses == 3);
  CHECK(t.e2e_misses == 2);
  CHECK(t.dropped == 1);
  CHECK(t.misses == 6);
}

TEST_CASE("TPOT, queue time and the throughput window of served requests", "[serving]") {
  ServingStats stats({}, at(seconds(10)));
  // Arrives at 20 s, leaves the queue at 21 s, first token at 21.5 s, done at 23.5 s: 2 s for
  // the 4 tokens after the first.
  stats.on_request_done({.arrival = at(seconds(20)),
                         .start = at(seconds(21)),
                         .first_token = at(millis(21'500)),
                         .completion = at(millis(23'500)),
                         .output_tokens = 5});
  // One output token: no TPOT, but its token counts and its arrival opens the window.
  stats.on_request_done({.arrival = at(seconds(12)),
                         .start = at(seconds(12)),
                         .first_token = at(seconds(13)),
                         .completion = at(seconds(13)),
                         .output_tokens = 1});
  // Dropped: opens the window no earlier, adds no token.
  stats.on_request_done({.arrival = at(seconds(15)),
                         .start = at(seconds(16)),
                         .first_token = at(seconds(16)),
                         .completion = at(seconds(16)),
                         .output_tokens = 9,
                         .dropped = true,
                         .drop_reason = DropReason::QueueTimeout});
  // During warmup: not counted.
  stats.on_request_done({.arrival = at(seconds(5)),
                         .start = at(seconds(5)),
                         .first_token = at(seconds(6)),
                         .completion = at(seconds(40)),
                         .output_tokens = 100});
  const SloTotals& t = stats.totals();
  CHECK(t.tpot_s.count() == 1);
  CHECK(t.tpot_s.min() == 0.5);
  CHECK(t.queue_s.count() == 2);
  CHECK(t.queue_s.min() == 0.0);
  CHECK(t.queue_s.max() == 1.0);
  CHECK(t.output_tokens == 6);
  CHECK(t.first_arrival == at(seconds(12)));
  CHECK(t.last_completion == at(millis(23'500)));
  // An unfinished request that arrived first widens the window.
  stats.judge_unfinished(at(seconds(11)), std::nullopt, at(seconds(60)));
  CHECK(stats.totals().first_arrival == at(seconds(11)));
}

TEST_CASE("a service that does not time tokens records no TPOT and no token window", "[serving]") {
  ServingStats stats({}, kSimStart, /*tokens=*/false);
  stats.on_request_done({.arrival = at(seconds(1)),
                         .start = at(seconds(2)),
                         .first_token = at(seconds(3)),
                         .completion = at(seconds(3)),
                         .output_tokens = 50});
  const SloTotals& t = stats.totals();
  CHECK(t.served == 1);
  CHECK(t.queue_s.max() == 1.0);
  CHECK(t.tpot_s.count() == 0);
  CHECK(t.output_tokens == 0);
  CHECK(t.first_arrival == SimTime::max());
  CHECK(t.last_completion == SimTime::min());
}
