#include "fleetsim/serving/serving_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/traffic/traffic.hpp"
#include "unit/serving/serving_fixtures.hpp"

using namespace fleetsim;
using test::Recorder;
using test::VectorSource;

namespace {

Request request_at(SimDuration t, std::uint32_t in = 0, std::uint32_t out = 0) {
  return {.arrival = at(t), .input_tokens = in, .output_tokens = out};
}

// Running sums over a long run.
class WaitStats final : public ServingObserver {
 public:
  void on_request_done(const RequestOutcome& o) override {
    if (o.dropped) return;
    ++served;
    const double w = to_seconds(o.wait());
    wait_sum += w;
    if (w > 0) ++waited;
    hash = hash * 1'000'003 + static_cast<std::uint64_t>(o.completion.time_since_epoch().count()) +
           o.replica;
  }
  std::uint64_t served = 0;
  std::uint64_t waited = 0;
  double wait_sum = 0;
  std::uint64_t hash = 0;
};

class DrainLog final : public ReplicaListener {
 public:
  void on_replica_drained(ReplicaId id, SimTime now, SimDuration) override {
    drained.emplace_back(id, now);
  }
  std::vector<std::pair<ReplicaId, SimTime>> drained;
};

// Erlang C: the probability that an arrival waits in an M/M/c queue with offered load a = λ/μ.
double erlang_c(int c, double a) {
  double term = 1;  // a^k / k!
  double sum = 0;
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double last = term * c / (c - a);
  return last / (sum + last);
}

struct MmcResult {
  WaitStats stats;
  ServingCounters counters;
  double queue_integral_s = 0;  // request-seconds
  double elapsed_s = 0;
};

// c single-slot replicas, Poisson(λ) arrivals, exponential service with mean 1/μ, no timeout.
MmcResult run_mmc(int c, double lambda, double mu, SimDuration horizon, std::uint64_t seed) {
  MmcResult result;
  Simulation sim(seed);
  ServingModel model(
      sim, {.concurrency = 1, .service_time = ExponentialServiceTime{.mean = from_seconds(1 / mu)}},
      sim.rng("serving"));
  model.set_observer(&result.stats);
  for (int i = 0; i < c; ++i) model.add_replica({.id = static_cast<ReplicaId>(i)}, kSimStart);
  auto source = make_traffic_source(PoissonConfig{.rps = lambda}, sim.rng("traffic"));
  model.attach(*source);
  sim.run_until(at(horizon));
  result.counters = model.counters();
  result.queue_integral_s = model.queue_length_integral() / 1e6;
  result.elapsed_s = to_seconds(horizon);
  return result;
}

}  // namespace

TEST_CASE("M/M/c: mean wait and P(wait) match Erlang C, Little's law holds", "[serving]") {
  constexpr int kServers = 4;
  constexpr double kMu = 1.0;
  constexpr double kRho = 0.8;
  constexpr double kLambda = kRho * kServers * kMu;
  // 4.8 M arrivals. At ρ = 0.8 waits are strongly autocorrelated: over 1.6 M arrivals the
  // mean wait's spread between seeds is about 1.1 % (measured over six seeds), so this length
  // puts the 3 % band at about four standard errors (≈ 0.65 %), whatever the seed.
  const MmcResult r = run_mmc(kServers, kLambda, kMu, seconds(1'500'000), 2024);
  REQUIRE(r.stats.served > 4'700'000);

  const double c_prob = erlang_c(kServers, kLambda / kMu);
  const double expected_wait = c_prob / (kServers * kMu - kLambda);  // W_q = C ÷ (cμ − λ)
  const double mean_wait = r.stats.wait_sum / static_cast<double>(r.stats.served);
  CHECK(mean_wait == Approx(expected_wait).epsilon(0.03));
  CHECK(static_cast<double>(r.stats.waited) / static_cast<double>(r.stats.served) ==
        Approx(c_prob).epsilon(0.02));

  // Little: mean queue length (integrated exactly) = arrival rate × mean time in queue.
  const double mean_queue = r.queue_integral_s / r.elapsed_s;
  const double lambda_eff = static_cast<double>(r.stats.served) / r.elapsed_s;
  CHECK(mean_queue == Approx(lambda_eff * mean_wait).epsilon(0.01));
}

TEST_CASE("a seed determines the run", "[serving]") {
  const MmcResult a = run_mmc(3, 2.4, 1.0, seconds(20'000), 7);
  const MmcResult b = run_mmc(3, 2.4, 1.0, seconds(20'000), 7);
  const MmcResult c = run_mmc(3, 2.4, 1.0, seconds(20'000), 8);
  CHECK(a.stats.hash == b.stats.hash);
  CHECK(a.queue_integral_s == b.queue_integral_s);
  CHECK(a.counters.served == b.counters.served);
  CHECK(a.stats.hash != c.stats.hash);
}

TEST_CASE("routing: fewest in flight, ties by replica id", "[serving]") {
  Simulation sim(1);
  ServingModel model(sim,
                     {.concurrency = 2, .service_time = FixedServiceTime{.duration = seconds(100)}},
                     sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  for (ReplicaId id : {30, 10, 20}) model.add_replica({.id = id}, kSimStart);
  VectorSource source({request_at(seconds(1)), request_at(seconds(2)), request_at(seconds(3)),
                       request_at(seconds(4)), request_at(seconds(5))});
  model.attach(source);
  sim.run_until(at(seconds(4)));
  CHECK(model.in_flight(10) == 2);
  CHECK(model.in_flight(20) == 1);
  CHECK(model.in_flight(30) == 1);
  sim.run_until(at(seconds(1000)));
  REQUIRE(recorder.outcomes.size() == 5);
  // Completion order is start order (fixed service time); starts went 10, 20, 30, 10, 20.
  const std::vector<ReplicaId> expected{10, 20, 30, 10, 20};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(recorder.outcomes[i].replica == expected[i]);
    CHECK(recorder.outcomes[i].wait() == SimDuration{});
  }
}

TEST_CASE("queue timeout drops exactly the requests that waited too long", "[serving]") {
  // One slot, 10 s each, timeout 15 s, arrivals at 0, 1, …, 9 s. r0 runs 0–10, r1 (waited 9 s)
  // 10–20; at 20 s r2…r5 have waited ≥ 15 s (dropped at 17…20 s), r6 (14 s) runs 20–30; at 30 s
  // r7…r9 are dropped, at 22, 23 and 24 s.
  Simulation sim(1);
  ServingModel model(sim,
                     {.concurrency = 1,
                      .service_time = FixedServiceTime{.duration = seconds(10)},
                      .queue_timeout = seconds(15)},
                     sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1}, kSimStart);
  std::vector<Request> requests;
  for (int i = 0; i < 10; ++i) requests.push_back(request_at(seconds(i)));
  VectorSource source(requests);
  model.attach(source);
  sim.run_until(at(seconds(40)));

  const ServingCounters c = model.counters();
  CHECK(c.arrived == 10);
  CHECK(c.served == 3);
  CHECK(c.dropped == 7);
  CHECK(c.queued == 0);
  std::vector<int> served_arrivals;
  for (const RequestOutcome& o : recorder.outcomes) {
    const auto arrival_s = static_cast<int>(to_seconds(o.arrival));
    if (o.dropped) {
      CHECK(o.drop_reason == DropReason::QueueTimeout);
      CHECK(o.completion == o.arrival + seconds(15));
    } else {
      served_arrivals.push_back(arrival_s);
    }
  }
  CHECK(served_arrivals == std::vector<int>{0, 1, 6});
  // Queue residence: r1 9 s, r2…r5 15 s each, r6 14 s, r7…r9 15 s each = 128 s, exactly, though
  // r7…r9 were noticed only at 30 s.
  CHECK(model.queue_length_integral() == 128e6);
}

TEST_CASE("a bounded queue drops arrivals beyond max_queue", "[serving]") {
  Simulation sim(1);
  ServingModel model(
      sim,
      {.concurrency = 1, .service_time = FixedServiceTime{.duration = seconds(10)}, .max_queue = 2},
      sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica({.id = 1}, kSimStart);
  VectorSource source({request_at(seconds(0)), request_at(seconds(1)), request_at(seconds(2)),
                       request_at(seconds(3))});
  model.attach(source);
  sim.run_until(at(seconds(5)));
  CHECK(model.counters().queued == 2);
  REQUIRE(recorder.outcomes.size() == 1);
  CHECK(recorder.outcomes[0].drop_reason == DropReason::QueueFull);
  CHECK(recorder.outcomes[0].arrival == at(seconds(3)));
}

TEST_CASE("LLM requests take their replica's ttft and decode time, slowed by occupancy",
          "[serving]") {
  Simulation sim(1);
  ServingModel model(sim, {.concurrency = 4, .service_time = LlmServiceTime{.slowdown_alpha = 0.5}},
                     sim.rng("serving"));
  Recorder recorder;
  model.set_observer(&recorder);
  model.add_replica(
      {.id = 7, .rates = LlmRates{.prefill_tokens_per_s = 30000, .time_per_output_token_s = 0.006}},
      kSimStart);
  // Three at once: in flight 1, 2, 3 at their starts → slowdown 1, 1.125, 1.25.
  VectorSource source({request_at(seconds(1), 1200, 100), request_at(seconds(1), 1200, 100),
                       request_at(seconds(1), 1200, 100)});
  model.attach(source);
  sim.run_until(at(seconds(10)));
  REQUIRE(recorder.outcomes.size() == 3);
  const SimDuration decode[] = {millis(600), millis(675), millis(750)};
  for (std::size_t i = 0; i < 3; ++i) {
    const RequestOutcome& o = recorder.outcomes[i];
    CHECK(o.start == at(seconds(1)));
    CHECK(o.first_token - o.start == millis(40));  // 1,200 tokens ÷ 30,000 tokens/s
    CHECK(o.completion - o.first_token == decode[i]);
    CHECK(o.replica == 7);
  }

  // Each replica has its own rates.
  model.add_replica(
      {.id = 8, .rates = LlmRates{.prefill_tokens_per_s = 1000, .time_per_output_token_s = 0.1}},
      sim.now());
  model.begin_termination(7);
  model.arrive(500, 10);
  sim.run_until(at(seconds(20)));
  REQUIRE(recorder.outcomes.size() == 4);
  CHECK(recorder.outcomes[3].replica == 8);
  CHECK(recorder.outcomes[3].time_to_first_token() == millis(500));
  CHECK(recorder.outcomes[3].latency() == millis(1500));
}

TEST_CASE("busy time integrates the time with at least one request in flight", "[serving]") {
  Simulation sim(1);
  ServingModel model(sim,
                     {.concurrency = 2, .service_time = FixedServiceTime{.duration = seconds(10)}},
                     sim.rng("serving"));
  model.add_replica({.id = 1}, kSimStart);
  model.add_replica({.id = 2}, kSimStart);
  // Fewest in flight sends 0 s to replica 1 (tie, lower id), 5 s to replica 2 and 30 s to
  // replica 1: replica 1 is busy 0–10 and 30–40, replica 2 5–15.
  VectorSource source({request_at(seconds(0)), request_at(seconds(5)), request_at(seconds(30))});
  model.attach(source);
  sim.run_until(at(seconds(35)));
  CHECK(model.busy_time(1) == seconds(15));
  CHECK(model.busy_time(2) == seconds(10));
  sim.run_until(at(seconds(50)));
  CHECK(model.busy_time(1) == seconds(20));
  CHECK(model.total_busy_time() == seconds(30));

  // Overlapping requests on one replica count once: both slots 60–70 and 65–75 → 15 s.
  model.begin_termination(2);
  sim.run_until(at(seconds(60)));
  model.arrive(0, 0);
  sim.run_until(at(seconds(65)));
  model.arrive(0, 0);
  sim.run_until(at(seconds(100)));
  CHECK(model.busy_time(1) == seconds(20 + 15));
  // Replica 2 is gone, but its busy time stays in the service total.
  CHECK_FALSE(model.has_replica(2));
  CHECK(model.total_busy_time() == seconds(45));
}

TEST_CASE("termination drains in-flight work, replicas become ready later", "[serving]") {
  Simulation sim(1);
  ServingModel model(sim,
                     {.concurrency = 1, .service_time = FixedServiceTime{.duration = seconds(10)}},
                     sim.rng("serving"));
  Recorder recorder;
  DrainLog drains;
  model.set_observer(&recorder);
  model.set_replica_listener(&drains);
  model.add_replica({.id = 1}, kSimStart);
  model.add_replica({.id = 2}, at(seconds(30)));  // starting: takes nothing until 30 s
  model.add_replica({.id = 3}, std::nullopt);     // ready only when told
  VectorSource source({request_at(seconds(0)), request_at(seconds(1)), request_at(seconds(2))});
  model.attach(source);
  sim.run_until(at(seconds(5)));
  model.begin_termination(1);
  CHECK(model.ready_replica_count() == 0);
  CHECK(drains.drained.empty());
  sim.run_until(at(seconds(25)));
  REQUIRE(drains.drained.size() == 1);
  CHECK(drains.drained[0] == std::pair<ReplicaId, SimTime>{1, at(seconds(10))});
  CHECK(model.counters().queued == 2);  // replica 1 took no more after termination
  sim.run_until(at(seconds(35)));
  CHECK(model.in_flight(2) == 1);  // ready at 30 s, took the head of the queue
  model.set_ready(3);
  CHECK(model.in_flight(3) == 1);
  model.begin_termination(3);  // busy: drains at 45 s
  sim.run_until(at(seconds(100)));
  CHECK(drains.drained.back() == std::pair<ReplicaId, SimTime>{3, at(seconds(45))});
  REQUIRE(recorder.outcomes.size() == 3);
  CHECK(recorder.outcomes[1].replica == 2);
  CHECK(recorder.outcomes[1].start == at(seconds(30)));
  CHECK(recorder.outcomes[2].replica == 3);
}

TEST_CASE("conservation: arrived = served + dropped + in flight + queued", "[serving]") {
  Simulation sim(99);
  ServingModel model(sim,
                     {.concurrency = 2,
                      .service_time = LogNormalServiceTime{.median = seconds(1), .sigma = 0.8},
                      .queue_timeout = seconds(3),
                      .max_queue = 50},
                     sim.rng("serving"));
  WaitStats stats;
  DrainLog drains;
  model.set_observer(&stats);
  model.set_replica_listener(&drains);
  for (ReplicaId id = 0; id < 4; ++id) model.add_replica({.id = id}, kSimStart);
  // Offered load above capacity, so the timeout and the bound both bite.
  auto source = make_traffic_source(PoissonConfig{.rps = 9}, sim.rng("traffic"));
  model.attach(*source);
  const auto check = [&] {
    const ServingCounters c = model.counters();
    CHECK(c.arrived == c.served + c.dropped + c.in_flight + c.queued);
    CHECK(c.served == stats.served);
  };
  sim.run_until(at(seconds(500)));
  check();
  model.begin_termination(2);
  model.kill_replica(3);
  sim.run_until(at(seconds(1000)));
  check();
  model.catch_up();
  check();
  const ServingCounters c = model.counters();
  CHECK(c.dropped > 0);
  CHECK(c.in_flight > 0);
  REQUIRE(drains.drained.size() == 1);
  CHECK(drains.drained[0].first == 2);
  CHECK(model.replica_count() == 2);
}
