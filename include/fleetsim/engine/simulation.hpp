// One simulation run: the clock, the event queue, periodic timers, the run loop and RNG streams.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/engine/event_queue.hpp"
#include "fleetsim/engine/phase.hpp"

namespace fleetsim {

// Names one periodic series from Simulation::every; cancelling it stops the whole series. Stale
// handles (a series already cancelled, its slot since reused) are harmless.
struct TimerHandle {
  static constexpr std::uint32_t kNoTimer = 0xffff'ffff;
  std::uint32_t index = kNoTimer;
  std::uint32_t generation = 0;

  constexpr bool is_null() const { return index == kNoTimer; }
  friend constexpr bool operator==(TimerHandle, TimerHandle) = default;
};

// Everything here is per instance (no global state), so a sweep can run many at once on threads.
// Handlers are held by address: they, and the Simulation, must outlive the events they schedule.
class Simulation : private EventHandler {
 public:
  explicit Simulation(std::uint64_t seed);
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  SimTime now() const { return now_; }
  std::uint64_t seed() const { return seed_; }

  // Scheduling before now() is a bug in the caller, caught by FLEETSIM_ASSERT.
  EventHandle schedule_at(SimTime time, Phase phase, EventHandler& handler, std::uint64_t tag = 0);
  EventHandle schedule_after(SimDuration delay, Phase phase, EventHandler& handler,
                             std::uint64_t tag = 0);
  // A series of events of which at most one waits at a time, such as a traffic source's next
  // arrival: in the same order as schedule_at's, at less cost, and never cancelled.
  std::uint32_t add_lane() { return queue_.add_lane(); }
  // The lane's previous event has run.
  void schedule_lane(std::uint32_t lane, SimTime time, Phase phase, EventHandler& handler,
                     std::uint64_t tag = 0);
  bool cancel(EventHandle handle) { return queue_.cancel(handle); }
  bool is_pending(EventHandle handle) const { return queue_.is_pending(handle); }

  // Fires at first_at, first_at + period, … until cancelled. Each firing schedules the next one
  // before calling the handler, so the handler may cancel its own series.
  TimerHandle every(SimDuration period, SimTime first_at, Phase phase, EventHandler& handler,
                    std::uint64_t tag = 0);
  bool cancel(TimerHandle handle);

  // Runs every event due at or before `end` (events at exactly `end` run), then sets the clock to
  // `end`. Later events stay queued, so a further run_until continues where this one stopped.
  void run_until(SimTime end);
  // Called from a handler: ends the current run_until after this event. The clock stays at this
  // event's time; a later run_until resumes.
  void stop() { stop_requested_ = true; }

  // Events dispatched so far, periodic firings included; cancelled events are not counted.
  // Reported as engine.events.
  std::uint64_t events_processed() const { return events_processed_; }
  // Live events waiting in the queue.
  std::size_t pending_events() const { return queue_.size(); }

  // A random stream derived from (seed, component): the same component always gets the same
  // sequence, whatever else the run does.
  RngStream rng(std::string_view component) const { return RngStream(seed_, component); }

  // Calls `callback` when simulated time first reaches or passes each multiple of `every` (once
  // per advance, however many multiples it jumps). For progress display only; never per event.
  void set_progress(std::function<void(SimTime now)> callback, SimDuration every);

 private:
  struct Timer {
    SimDuration period{};
    Phase phase = Phase::CloudAndNodes;
    EventHandler* handler = nullptr;
    std::uint64_t tag = 0;
    EventHandle next;  // the series' one queued firing
    std::uint32_t generation = 0;
    std::uint32_t next_free = TimerHandle::kNoTimer;
    bool active = false;
  };

  // Dispatches periodic firings; the tag is the timer index.
  void on_event(SimTime now, std::uint64_t tag) override;
  void advance_clock(SimTime to);

  std::uint64_t seed_;
  SimTime now_ = kSimStart;
  EventQueue queue_;
  std::vector<Timer> timers_;
  std::uint32_t free_timer_ = TimerHandle::kNoTimer;
  std::uint64_t events_processed_ = 0;
  bool running_ = false;
  bool stop_requested_ = false;

  std::function<void(SimTime)> progress_;
  SimDuration progress_every_{};
  SimTime next_progress_ = SimTime::max();  // max() = no callback, one compare per event
};

}  // namespace fleetsim
