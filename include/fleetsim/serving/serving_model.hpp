// One inference service: replicas with batching slots, routing, a FIFO queue with timeout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/engine_replica.hpp"
#include "fleetsim/serving/milestone_tree.hpp"
#include "fleetsim/serving/ready_replicas.hpp"
#include "fleetsim/serving/serving_backend.hpp"
#include "fleetsim/serving/serving_settings.hpp"
#include "fleetsim/serving/serving_time.hpp"
#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// The serving model of DESIGN.md §4.4 for one service, driven by the engine in Phase::Workload.
//
// Routing: an arriving request takes a slot on the Ready replica with the fewest requests in
// flight (ties: smallest id), else joins the FIFO queue. Whenever a slot frees on a Ready
// replica, or a replica becomes Ready, the queue's head starts. So the queue is non-empty only
// while every Ready replica is full, and the replica with the freed slot is then the only choice.
//
// Queue timeout is checked lazily: expired requests are removed from the head whenever the queue
// is touched (a request arrives, a slot frees, a replica becomes ready) and by expire_queue().
// Since the timeout is the same for all, the expired requests are always a prefix of the FIFO,
// so each check is O(dropped). This bounds the queue to the arrivals of the last queue_timeout,
// costs no event per request, and still reports exact drop times and an exact queue-length
// integral (the time an expired request sat unnoticed is subtracted). Only counters().queued
// can run ahead of the truth between checks; a metrics scrape calls expire_queue() first.
//
// Per-event cost is O(log replicas) and allocation-free: slots are preallocated per replica,
// the queue is a ring buffer that grows by doubling, and completions carry their slot (and a
// generation, so a cancelled slot's stale event is ignored) in the event tag.
//
// A replica on a time-sliced GPU (ReplicaSpec::time_slice) runs its engine on a clock of its
// own, which advances at time_sliced_speed(k) of the simulation's while k replicas on that GPU
// have requests in flight; its milestones always have events of their own.
class ServingModel final : public ServingBackend, public EventHandler, private TimeSliceClient {
 public:
  // `sim` must outlive the model; the model must outlive its scheduled events.
  ServingModel(Simulation& sim, const ServingConfig& config, RngStream rng);
  ~ServingModel();
  ServingModel(const ServingModel&) = delete;
  ServingModel& operator=(const ServingModel&) = delete;

  void set_observer(ServingObserver* observer) override { observer_ = observer; }
  // Under the engine model, lets the engines' news wait while nothing can see it: a replica's
  // requests that finish are reported at the next arrival or catch_up(), with their own times,
  // and cost no event of their own. Only for an observer that does not act on the news at once
  // (not a closed loop, whose users send the next request). While requests queue, or a replica
  // drains, the engines report on time as before.
  void report_lazily() { lazy_ = true; }
  void set_replica_listener(ReplicaListener* listener) override { listener_ = listener; }

  // Pulls requests from `source` one at a time, scheduling one arrival event ahead. Arrivals
  // before now() are skipped. `source` must outlive the model. Call at most once.
  void attach(TrafficSource& source);
  // A request arriving now (for callers that make their own arrival events).
  void arrive(std::uint32_t input_tokens, std::uint32_t output_tokens);

  // Adds a replica that becomes Ready at `ready_at` (now or earlier: at once), or, with nullopt,
  // when set_ready is called. Ids are unique among live replicas.
  void add_replica(const ReplicaSpec& spec, std::optional<SimTime> ready_at) override;
  // A Starting replica becomes Ready and takes queued work. No-op for any other state.
  void set_ready(ReplicaId id) override;
  // The replica takes no new requests; its in-flight requests finish, then the listener hears
  // on_replica_drained and the replica is gone. A Starting replica goes at once.
  void begin_termination(ReplicaId id) override;
  // The replica goes now; its in-flight requests are dropped (ReplicaKilled): a pod killed at
  // the end of its grace period, or a node lost. No listener call.
  void kill_replica(ReplicaId id) override;
  // Brings what is kept lazily up to now: drops every queued request that has waited
  // queue_timeout, and reports what the engines did (report_lazily). Call before reading
  // counters, gauges or busy times.
  void catch_up() override;

  ServingCounters counters() const override;
  std::size_t replica_count() const { return live_replicas_; }
  std::size_t ready_replica_count() const { return ready_.size(); }
  bool has_replica(ReplicaId id) const override { return find(id) != kNone; }
  std::uint32_t in_flight(ReplicaId id) const override;
  // Under the engine model: its engine's gauges (zero otherwise).
  ReplicaLoad load(ReplicaId id) const override;
  EngineTotals engine_totals() const override;
  // Requests the replica has completed (vLLM's request_success_total).
  std::uint64_t served_by(ReplicaId id) const override;
  // Calls f(arrival, first_token) for each request queued (first_token nullopt) or in flight
  // (first_token nullopt until it is produced), as of now.
  template <typename F>
  void visit_unfinished(F&& f) const;
  void for_each_unfinished(const UnfinishedVisitor& f) const override {
    visit_unfinished(
        [&](SimTime arrival, std::optional<SimTime> first_token) { f(arrival, first_token, 1); });
  }
  // Time with at least one request in flight (DCGM_FI_DEV_GPU_UTIL's sense of busy), up to now.
  SimDuration busy_time(ReplicaId id) const override;
  // Summed over every replica the service ever had, up to now.
  SimDuration total_busy_time() const override;
  // ∫ queue length dt up to now, in request-microseconds; ÷ elapsed time = mean queue length.
  double queue_length_integral() const;

  void on_event(SimTime now, std::uint64_t tag) override;

 private:
  // The replica's engine clock runs at `speed` from now on.
  void on_speed(std::uint32_t replica, double speed, SimTime now) override;
  enum class ReplicaState : std::uint8_t { Starting, Ready, Terminating, Gone };
  enum class TagKind : std::uint8_t { Arrival = 0, Completion = 1, Ready = 2, Milestone = 3 };
  // Completions name a slot and its generation; Ready and Milestone events a replica entry and
  // its generation.
  using Tag = EventTag<TagKind>;

  static constexpr std::uint32_t kNone = 0xffff'ffff;

  struct Engine;  // a replica's EngineReplica, its listener and its milestone event

  // What a request's start and end read comes first: one cache line.
  struct Replica {
    std::unique_ptr<Engine> engine;  // under the engine model
    std::uint32_t capacity = 0;      // the most requests it takes at once
    std::uint32_t in_flight = 0;
    std::uint32_t free_slot = kNone;  // head of this replica's free-slot list
    ReplicaState state = ReplicaState::Gone;
    std::uint64_t served = 0;
    SimDuration busy{};    // closed busy periods
    SimTime busy_since{};  // start of the open busy period, if in_flight > 0
    ReplicaId id = kNoReplica;
    std::uint32_t generation = 0;         // bumped when the entry is reused; stale Ready events
    std::uint32_t next_free = kNone;      // free-entry list of replicas_
    TimeSlicedGpus::Handle seat = kNone;  // on a time-sliced GPU (time_slices_)
    LlmRates rates;
  };

  struct alignas(64) Slot {  // a cache line each
    SimTime arrival{};
    SimTime start{};
    SimTime first_token{};
    std::uint32_t input_tokens = 0;
    std::uint32_t output_tokens = 0;
    std::uint32_t generation = 0;
    std::uint32_t next_free = kNone;
    EventHandle completion;
    bool busy = false;
  };

  struct Queued {
    SimTime arrival;
    std::uint32_t input_tokens;
    std::uint32_t output_tokens;
  };

  std::uint32_t find(ReplicaId id) const;
  void arrive_at(SimTime now, std::uint32_t input_tokens, std::uint32_t output_tokens);
  void schedule_next_arrival();
  void start(std::uint32_t replica, SimTime now, const Queued& request);
  void complete(std::uint32_t slot, std::uint32_t generation, SimTime now);
  // Reports the slot's request as served (or dropped) at `at` and frees the slot; a draining
  // replica that empties retires. The caller dispatches the queue.
  void release(std::uint32_t slot, SimTime at, DropReason drop);
  // The engine's news since the last call, then the replica's next milestone event.
  void settle_engine(std::uint32_t replica, SimTime now);
  void schedule_milestone(std::uint32_t replica);
  // Whether a replica's milestones need events of their own (see report_lazily).
  bool milestones_on_time(const Replica& r) const {
    return !lazy_ || r.state != ReplicaState::Ready || queue_count_ > 0 || r.seat != kNone;
  }
  // Runs every lazily kept engine whose milestone has come, and reports what it did.
  void catch_up_engines(SimTime now);
  bool has_room(const ReadyReplicas::Choice& c) const {
    return c.in_flight < replicas_[c.replica].capacity;
  }
  void make_ready(std::uint32_t replica);
  void retire(std::uint32_t replica);
  // The replica's requests in flight went from none to some, or back.
  void note_busy(Replica& r, bool busy, SimTime now);
  void dispatch_queue(SimTime now);
  void expire_front(SimTime now);
  void drop_queued(const Queued& request, SimTime at, DropReason reason);
  void note_queue_change(SimTime now);
  void report(const RequestOutcome& outcome);

  // The ring buffer.
  std::size_t queue_size() const { return queue_count_; }
  const Queued& queue_front() const { return queue_[queue_head_]; }
  void queue_pop();
  void queue_push(const Queued& request);

  Simulation& sim_;
  ServingConfig config_;
  ServiceTimeSampler sampler_;
  ServingObserver* observer_ = nullptr;
  ReplicaListener* listener_ = nullptr;

  TrafficSource* source_ = nullptr;
  Request pending_{};           // the arrival already scheduled
  std::uint32_t arrivals_ = 0;  // its lane of the simulation's events

  std::vector<Replica> replicas_;
  TimeSlicedGpus* time_slices_ = nullptr;  // the registry of the replicas' seats, if any
  bool lazy_ = false;
  MilestoneTree next_milestones_;  // by replica entry, its engine's (simulation seconds)
  std::vector<Slot> slots_;        // replica r owns [r × concurrency, (r + 1) × concurrency)
  ReadyReplicas ready_;
  std::uint32_t free_replica_ = kNone;
  std::size_t live_replicas_ = 0;

  std::vector<Queued> queue_;  // capacity a power of two
  std::size_t queue_head_ = 0;
  std::size_t queue_count_ = 0;

  std::uint64_t arrived_ = 0;
  std::uint64_t served_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t in_flight_ = 0;
  SimDuration retired_busy_{};
  EngineTotals retired_engines_{};
  struct EngineNews {
    std::uint32_t slot;
    double at;
    bool rejected;
  };
  std::vector<EngineNews> engine_news_;  // finishes and rejections, reported after the engine ran
  std::size_t news_read_ = 0;            // engine_news_ handled so far
  double queue_area_ = 0;                // request-µs up to queue_area_at_
  SimTime queue_area_at_{};
};

template <typename F>
void ServingModel::visit_unfinished(F&& f) const {
  for (std::size_t i = 0; i < queue_count_; ++i) {
    f(queue_[(queue_head_ + i) & (queue_.size() - 1)].arrival, std::optional<SimTime>{});
  }
  const SimTime now = sim_.now();
  for (const Slot& slot : slots_) {
    if (!slot.busy) continue;
    f(slot.arrival,
      slot.first_token <= now ? std::optional<SimTime>(slot.first_token) : std::nullopt);
  }
}

}  // namespace fleetsim
