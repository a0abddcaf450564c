// A closed loop of users (`pattern: closed`): each sends a request, waits for it to end, thinks,
// and sends the next, as a benchmark client at a fixed concurrency does.
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "fleetsim/traffic/traffic_config.hpp"
#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// Its arrivals depend on the service's completions, so it is no TrafficSource: it calls
// ServingModel::arrive() from events of its own, and its owner (the model's observer) tells it of
// every request that ends. Users are interchangeable, as the model serves FIFO: an ending
// request returns "a user" to thinking, and that user's next request is one event at the end of
// its think time. So users = requests in the system + users thinking, at every instant.
//
// A request dropped at once (a full queue) is followed by the next a think time later, as a
// benchmark client moves on after an error; the scenario refuses a zero think time with a queue
// shorter than the users, where that would repeat at one instant for ever.
class ClosedLoopTraffic final : public EventHandler {
 public:
  // `config` must be valid (throws ConfigError otherwise); `sim` and `model` must outlive it.
  // Token counts draw from a stream derived from `rng` as the other patterns' do ("tokens"),
  // think times from another ("think").
  ClosedLoopTraffic(Simulation& sim, ServingModel& model, const ClosedConfig& config,
                    RngStream rng);
  ClosedLoopTraffic(const ClosedLoopTraffic&) = delete;
  ClosedLoopTraffic& operator=(const ClosedLoopTraffic&) = delete;

  // Every user sends its first request now (the benchmarks start all of them at once).
  void start();
  // One of the loop's requests ended at `ended` (its outcome's completion), served or dropped:
  // its user's next request goes at ended + think time, or now if that has passed (the model
  // notices a queue timeout lazily, after the fact). Schedules, never calls the model: the model
  // calls its observer from inside its own event.
  void on_request_done(SimTime ended);

  // Requests sent so far, and those scheduled (sent or a user's next, after its think time).
  std::int64_t sent() const { return sent_; }
  std::int64_t scheduled() const { return scheduled_; }

  void on_event(SimTime now, std::uint64_t tag) override;

 private:
  void schedule(SimTime when);
  SimDuration think();

  Simulation& sim_;
  ServingModel& model_;
  std::int64_t users_;
  SimDuration think_time_;
  ThinkShape think_shape_;
  std::optional<std::int64_t> limit_;
  TokenSampler tokens_;
  RngStream think_rng_;
  std::int64_t sent_ = 0;
  std::int64_t scheduled_ = 0;
};

}  // namespace fleetsim
