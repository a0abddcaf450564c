// Event queue throughput: push+pop in a steady-state "hold" model, the engine's hot loop.
#include "fleetsim/engine/event_queue.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/simulation.hpp"

using namespace fleetsim;

namespace {

// Queue depth of a busy simulated cluster: in-flight requests, pod timers, periodic controllers.
constexpr std::int64_t kDepth = 10'000;
// Precomputed draws, so the timing measures the queue and not the random number generator.
constexpr std::size_t kDraws = 1 << 16;

struct Draw {
  SimDuration delay;
  Phase phase;
};

// A realistic mix of delays: mostly short request service times, some controller periods and
// occasional long node/pod lifecycle timers, across all phases.
std::vector<Draw> make_draws() {
  RngStream rng(7, "bench/event_queue");
  std::vector<Draw> draws(kDraws);
  for (Draw& d : draws) {
    const double u = rng.uniform();
    if (u < 0.7) {
      d.delay = from_seconds(rng.exponential(0.2));  // request service
      d.phase = Phase::Workload;
    } else if (u < 0.9) {
      d.delay = seconds(15);  // scrape / HPA sync period
      d.phase = rng.uniform() < 0.5 ? Phase::MetricsScrape : Phase::Autoscalers;
    } else {
      d.delay = from_seconds(rng.uniform() * 300.0);  // launches, image pulls, readiness
      d.phase = static_cast<Phase>(rng.below(kPhaseCount));
    }
  }
  return draws;
}

class Sink : public EventHandler {
 public:
  void on_event(SimTime, std::uint64_t tag) override { benchmark::DoNotOptimize(tag); }
};

// Pop the earliest event, push one later: the queue stays at kDepth, as in a long run.
void BM_EventQueueHold(benchmark::State& state) {
  const std::vector<Draw> draws = make_draws();
  Sink sink;
  EventQueue queue;
  queue.reserve(static_cast<std::size_t>(state.range(0)) + 1);
  std::size_t next = 0;
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    const Draw& d = draws[next++ % kDraws];
    queue.push(at(d.delay), d.phase, &sink, static_cast<std::uint64_t>(i));
  }
  for (auto _ : state) {
    const std::optional<Event> e = queue.pop();
    const Draw& d = draws[next++ % kDraws];
    queue.push(e->time + d.delay, d.phase, e->handler, e->tag);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Arg(kDepth)->Arg(1'000)->Arg(100'000);

// Request-timeout pattern: every event schedules its successor and a timeout, and cancels the
// previous timeout, so half the pushed events are cancelled lazily.
void BM_EventQueueHoldWithCancel(benchmark::State& state) {
  const std::vector<Draw> draws = make_draws();
  Sink sink;
  EventQueue queue;
  std::vector<EventHandle> timeouts(static_cast<std::size_t>(kDepth));
  std::size_t next = 0;
  for (std::int64_t i = 0; i < kDepth; ++i) {
    const Draw& d = draws[next++ % kDraws];
    queue.push(at(d.delay), d.phase, &sink, static_cast<std::uint64_t>(i));
  }
  for (auto _ : state) {
    const std::optional<Event> e = queue.pop();
    const Draw& d = draws[next++ % kDraws];
    queue.push(e->time + d.delay, d.phase, e->handler, e->tag);
    EventHandle& timeout = timeouts[e->tag];
    queue.cancel(timeout);
    timeout = queue.push(e->time + seconds(30), Phase::Workload, &sink, e->tag);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHoldWithCancel);

// The same hold model through Simulation: virtual dispatch and clock included.
class Rescheduler : public EventHandler {
 public:
  Rescheduler(Simulation& sim, const std::vector<Draw>& draws) : sim_(sim), draws_(draws) {}
  void on_event(SimTime, std::uint64_t tag) override {
    const Draw& d = draws_[next_++ % kDraws];
    sim_.schedule_after(d.delay, d.phase, *this, tag);
  }

 private:
  Simulation& sim_;
  const std::vector<Draw>& draws_;
  std::size_t next_ = 0;
};

void BM_SimulationRun(benchmark::State& state) {
  const std::vector<Draw> draws = make_draws();
  std::int64_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Simulation sim(1);
    Rescheduler handler(sim, draws);
    for (std::int64_t i = 0; i < kDepth; ++i) {
      sim.schedule_at(at(draws[static_cast<std::size_t>(i)].delay), Phase::Workload, handler,
                      static_cast<std::uint64_t>(i));
    }
    state.ResumeTiming();
    sim.run_until(at(minutes(10)));
    events += static_cast<std::int64_t>(sim.events_processed());
  }
  state.SetItemsProcessed(events);
}
BENCHMARK(BM_SimulationRun)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
