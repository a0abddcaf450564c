#include "fleetsim/engine/simulation.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "unit/engine/recorder.hpp"

using namespace fleetsim;
using fleetsim::test::Recorder;
using fleetsim::test::Seen;

TEST_CASE("handlers see the clock at their event's time", "[engine]") {
  Simulation sim(1);
  Recorder r;
  std::vector<SimTime> clock_in_handler;
  r.then = [&](SimTime, std::uint64_t) { clock_in_handler.push_back(sim.now()); };
  sim.schedule_at(at(seconds(10)), Phase::Workload, r, 1);
  sim.schedule_at(at(seconds(3)), Phase::Workload, r, 2);
  sim.run_until(at(minutes(1)));
  CHECK(r.seen == std::vector<Seen>{{at(seconds(3)), 2}, {at(seconds(10)), 1}});
  CHECK(clock_in_handler == std::vector<SimTime>{at(seconds(3)), at(seconds(10))});
  CHECK(sim.now() == at(minutes(1)));
}

TEST_CASE("schedule_after is relative to the current time", "[engine]") {
  Simulation sim(1);
  Recorder r;
  r.then = [&](SimTime, std::uint64_t tag) {
    if (tag == 1) sim.schedule_after(seconds(5), Phase::Workload, r, 2);
  };
  sim.schedule_after(seconds(2), Phase::Workload, r, 1);
  sim.run_until(at(seconds(60)));
  CHECK(r.seen == std::vector<Seen>{{at(seconds(2)), 1}, {at(seconds(7)), 2}});
}

TEST_CASE("same-instant events scheduled from a handler run in phase order", "[engine]") {
  Simulation sim(1);
  Recorder r;
  r.then = [&](SimTime now, std::uint64_t tag) {
    if (tag != 0) return;
    sim.schedule_at(now, Phase::Reporting, r, 3);
    sim.schedule_at(now, Phase::Provisioning, r, 2);
    sim.schedule_at(now, Phase::Autoscalers, r, 1);
  };
  sim.schedule_at(at(seconds(1)), Phase::MetricsScrape, r, 0);
  sim.run_until(at(seconds(1)));
  CHECK(r.tags() == std::vector<std::uint64_t>{0, 1, 2, 3});
}

TEST_CASE("run_until runs events at exactly the end and leaves later ones queued", "[engine]") {
  Simulation sim(1);
  Recorder r;
  sim.schedule_at(at(seconds(10)), Phase::Workload, r, 1);
  sim.schedule_at(at(seconds(20)), Phase::Workload, r, 2);
  sim.schedule_at(at(seconds(30)), Phase::Workload, r, 3);
  sim.run_until(at(seconds(20)));
  CHECK(r.tags() == std::vector<std::uint64_t>{1, 2});
  CHECK(sim.now() == at(seconds(20)));
  CHECK(sim.pending_events() == 1);

  sim.run_until(at(seconds(25)));  // nothing due: the clock still advances to the end
  CHECK(sim.now() == at(seconds(25)));
  CHECK(r.seen.size() == 2);

  sim.run_until(at(seconds(40)));
  CHECK(r.tags() == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(sim.now() == at(seconds(40)));
  CHECK(sim.pending_events() == 0);
}

TEST_CASE("stop ends the run after the current event", "[engine]") {
  Simulation sim(1);
  Recorder r;
  r.then = [&](SimTime, std::uint64_t tag) {
    if (tag == 2) sim.stop();
  };
  for (std::uint64_t i = 1; i <= 4; ++i) sim.schedule_at(at(seconds(i)), Phase::Workload, r, i);
  sim.run_until(at(seconds(100)));
  CHECK(r.tags() == std::vector<std::uint64_t>{1, 2});
  CHECK(sim.now() == at(seconds(2)));
  sim.run_until(at(seconds(100)));  // resumes
  CHECK(r.tags() == std::vector<std::uint64_t>{1, 2, 3, 4});
  CHECK(sim.now() == at(seconds(100)));
}

TEST_CASE("cancelled events do not run and are not counted", "[engine]") {
  Simulation sim(1);
  Recorder r;
  EventHandle h = sim.schedule_at(at(seconds(5)), Phase::Workload, r, 1);
  sim.schedule_at(at(seconds(6)), Phase::Workload, r, 2);
  CHECK(sim.cancel(h));
  sim.run_until(at(seconds(10)));
  CHECK(r.tags() == std::vector<std::uint64_t>{2});
  CHECK(sim.events_processed() == 1);
  CHECK_FALSE(sim.cancel(h));
}

TEST_CASE("events processed counts every dispatched event", "[engine]") {
  Simulation sim(1);
  Recorder r;
  for (int i = 0; i < 50; ++i) sim.schedule_at(at(seconds(i)), Phase::Workload, r);
  sim.every(seconds(10), at(seconds(0)), Phase::MetricsScrape, r);
  sim.run_until(at(seconds(100)));
  CHECK(sim.events_processed() == 50 + 11);
}

TEST_CASE("a periodic timer fires at exact multiples and stops when cancelled", "[engine]") {
  Simulation sim(1);
  Recorder r;
  TimerHandle timer = sim.every(seconds(15), at(seconds(5)), Phase::MetricsScrape, r, 9);
  sim.run_until(at(seconds(50)));
  CHECK(r.seen ==
        std::vector<Seen>{
            {at(seconds(5)), 9}, {at(seconds(20)), 9}, {at(seconds(35)), 9}, {at(seconds(50)), 9}});
  CHECK(sim.cancel(timer));
  CHECK_FALSE(sim.cancel(timer));
  sim.run_until(at(seconds(200)));
  CHECK(r.seen.size() == 4);
  CHECK(sim.pending_events() == 0);
}

TEST_CASE("a periodic handler may cancel its own series", "[engine]") {
  Simulation sim(1);
  Recorder r;
  TimerHandle timer;
  r.then = [&](SimTime, std::uint64_t) {
    if (r.seen.size() == 3) sim.cancel(timer);
  };
  timer = sim.every(seconds(1), at(seconds(1)), Phase::Autoscalers, r);
  sim.run_until(at(seconds(10)));
  CHECK(r.seen.size() == 3);
}

TEST_CASE("a stale timer handle does not cancel a reused timer", "[engine]") {
  Simulation sim(1);
  Recorder a;
  Recorder b;
  TimerHandle first = sim.every(seconds(1), at(seconds(1)), Phase::Workload, a);
  CHECK(sim.cancel(first));
  TimerHandle second = sim.every(seconds(2), at(seconds(2)), Phase::Workload, b);
  REQUIRE(second.index == first.index);
  CHECK_FALSE(sim.cancel(first));
  sim.run_until(at(seconds(6)));
  CHECK(a.seen.empty());
  CHECK(b.seen.size() == 3);
}

TEST_CASE("timers fire in phase order with one-shot events at the same instant", "[engine]") {
  Simulation sim(1);
  Recorder r;
  sim.every(seconds(10), at(seconds(10)), Phase::Autoscalers, r, 2);
  sim.every(seconds(10), at(seconds(10)), Phase::MetricsScrape, r, 1);
  sim.schedule_at(at(seconds(10)), Phase::Reporting, r, 3);
  sim.schedule_at(at(seconds(10)), Phase::CloudAndNodes, r, 0);
  sim.run_until(at(seconds(10)));
  CHECK(r.tags() == std::vector<std::uint64_t>{0, 1, 2, 3});
}

TEST_CASE("scheduling in the past is an internal error", "[engine]") {
  Simulation sim(1);
  Recorder r;
  sim.run_until(at(seconds(10)));
  CHECK_THROWS_AS(sim.schedule_at(at(seconds(9)), Phase::Workload, r), InternalError);
  CHECK_THROWS_AS(sim.schedule_after(seconds(-1), Phase::Workload, r), InternalError);
  CHECK_THROWS_AS(sim.every(seconds(1), at(seconds(5)), Phase::Workload, r), InternalError);
  CHECK_THROWS_AS(sim.every(seconds(0), at(seconds(20)), Phase::Workload, r), InternalError);
  CHECK_THROWS_AS(sim.run_until(at(seconds(5))), InternalError);
}

TEST_CASE("rng streams are deterministic per seed and component", "[engine]") {
  Simulation a(42);
  Simulation b(42);
  Simulation c(43);
  RngStream a_spot = a.rng("cloud/spot");
  RngStream b_spot = b.rng("cloud/spot");
  RngStream a_traffic = a.rng("workload/traffic");
  RngStream c_spot = c.rng("cloud/spot");
  bool traffic_differs = false;
  bool seed_differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a_spot.next_u64();
    CHECK(x == b_spot.next_u64());
    traffic_differs |= x != a_traffic.next_u64();
    seed_differs |= x != c_spot.next_u64();
  }
  CHECK(traffic_differs);
  CHECK(seed_differs);
  // A fresh stream for the same component restarts the same sequence.
  RngStream again = a.rng("cloud/spot");
  RngStream first = b.rng("cloud/spot");
  CHECK(again.next_u64() == first.next_u64());
}

TEST_CASE("the progress callback fires as time passes each multiple", "[engine]") {
  Simulation sim(1);
  Recorder r;
  std::vector<SimTime> reported;
  sim.set_progress([&](SimTime now) { reported.push_back(now); }, minutes(1));
  sim.schedule_at(at(seconds(30)), Phase::Workload, r);
  sim.schedule_at(at(seconds(60)), Phase::Workload, r);
  sim.schedule_at(at(seconds(61)), Phase::Workload, r);
  sim.schedule_at(at(seconds(250)), Phase::Workload, r);  // jumps past several multiples: once
  sim.run_until(at(seconds(300)));
  CHECK(reported == std::vector<SimTime>{at(seconds(60)), at(seconds(250)), at(seconds(300))});
}
