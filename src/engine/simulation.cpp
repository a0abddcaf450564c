#include "fleetsim/engine/simulation.hpp"

#include <utility>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/stop_flag.hpp"

namespace fleetsim {

Simulation::Simulation(std::uint64_t seed) : seed_(seed) {}

EventHandle Simulation::schedule_at(SimTime time, Phase phase, EventHandler& handler,
                                    std::uint64_t tag) {
  FLEETSIM_ASSERT(time >= now_);
  return queue_.push(time, phase, &handler, tag);
}

void Simulation::schedule_lane(std::uint32_t lane, SimTime time, Phase phase, EventHandler& handler,
                               std::uint64_t tag) {
  FLEETSIM_ASSERT(time >= now_);
  queue_.push_lane(lane, time, phase, &handler, tag);
}

EventHandle Simulation::schedule_after(SimDuration delay, Phase phase, EventHandler& handler,
                                       std::uint64_t tag) {
  FLEETSIM_ASSERT(delay >= SimDuration::zero());
  return queue_.push(saturating_add(now_, delay), phase, &handler, tag);
}

TimerHandle Simulation::every(SimDuration period, SimTime first_at, Phase phase,
                              EventHandler& handler, std::uint64_t tag) {
  FLEETSIM_ASSERT(period > SimDuration::zero());
  FLEETSIM_ASSERT(first_at >= now_);
  std::uint32_t index;
  if (free_timer_ != TimerHandle::kNoTimer) {
    index = free_timer_;
    free_timer_ = timers_[index].next_free;
  } else {
    FLEETSIM_ASSERT(timers_.size() < TimerHandle::kNoTimer);
    index = static_cast<std::uint32_t>(timers_.size());
    timers_.emplace_back();
  }
  Timer& t = timers_[index];
  t.period = period;
  t.phase = phase;
  t.handler = &handler;
  t.tag = tag;
  t.active = true;
  t.next = queue_.push(first_at, phase, this, index);
  return TimerHandle{index, t.generation};
}

bool Simulation::cancel(TimerHandle handle) {
  if (handle.index >= timers_.size()) return false;
  Timer& t = timers_[handle.index];
  if (!t.active || t.generation != handle.generation) return false;
  queue_.cancel(t.next);
  t.active = false;
  ++t.generation;
  t.handler = nullptr;
  // Safe to reuse at once: the series' only queued firing is cancelled and will never dispatch.
  t.next_free = free_timer_;
  free_timer_ = handle.index;
  return true;
}

void Simulation::on_event(SimTime now, std::uint64_t tag) {
  const auto index = static_cast<std::uint32_t>(tag);
  Timer& t = timers_[index];
  t.next = queue_.push(now + t.period, t.phase, this, index);
  // Copy before the call: the handler may add timers, which can move timers_.
  EventHandler* handler = t.handler;
  const std::uint64_t user_tag = t.tag;
  handler->on_event(now, user_tag);
}

void Simulation::run_until(SimTime end) {
  FLEETSIM_ASSERT(!running_);
  FLEETSIM_ASSERT(end >= now_);
  running_ = true;
  stop_requested_ = false;
  while (!stop_requested_) {
    // Per event, not per advance of the clock: events that keep time still can loop for ever.
    throw_if_stop_requested();
    const std::optional<Event> event = queue_.pop_until(end);
    if (!event) break;
    advance_clock(event->time);
    ++events_processed_;
    event->handler->on_event(now_, event->tag);
  }
  if (!stop_requested_) advance_clock(end);
  running_ = false;
}

void Simulation::set_progress(std::function<void(SimTime now)> callback, SimDuration every) {
  FLEETSIM_ASSERT(every > SimDuration::zero() || !callback);
  progress_ = std::move(callback);
  progress_every_ = every;
  if (!progress_) {
    next_progress_ = SimTime::max();
    return;
  }
  next_progress_ = SimTime{(now_.time_since_epoch() / every + 1) * every};
}

void Simulation::advance_clock(SimTime to) {
  now_ = to;
  if (now_ < next_progress_) return;
  next_progress_ = SimTime{(now_.time_since_epoch() / progress_every_ + 1) * progress_every_};
  progress_(now_);
}

}  // namespace fleetsim
