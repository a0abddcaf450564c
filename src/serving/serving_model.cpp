#include "fleetsim/serving/serving_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// The queue's first allocation; it doubles from there and never shrinks.
constexpr std::size_t kInitialQueueCapacity = 64;

// The engine's clock is in seconds (a double); the simulation's in whole microseconds.
SimTime to_sim_time(double seconds) { return SimTime{from_seconds(seconds)}; }
double engine_clock(SimTime t) { return to_seconds(t); }

}  // namespace

// A replica's engine hears its own news: first tokens go straight into the slot, finishes and
// rejections are queued and handled once the engine has returned (they free slots, which the
// queue then refills: that must not call back into the engine while it runs).
// The engine runs on a clock of its own: engine = v0 + speed × (simulation − r0), in seconds.
// Whole GPUs keep speed 1 and both origins 0, where the two clocks agree exactly.
struct ServingModel::Engine final : EngineListener {
  Engine(ServingModel& model, std::uint32_t replica, const StepCost& cost)
      : model(model), first_slot(replica * model.config_.concurrency), engine(cost, *this) {}

  void on_first_token(std::uint32_t slot, double at) override {
    Slot& s = model.slots_[first_slot + slot];
    s.first_token = std::max(s.start, to_sim_time(to_real(at)));
  }
  void on_finished(std::uint32_t slot, double at) override {
    model.engine_news_.push_back({first_slot + slot, to_real(at), false});
  }
  void on_rejected(std::uint32_t slot, double at) override {
    model.engine_news_.push_back({first_slot + slot, to_real(at), true});
  }
  double to_engine(SimTime t) const { return v0 + speed * (engine_clock(t) - r0); }
  // When a request the router sends at `t` reaches the engine. A milestone's event comes at its
  // time rounded up to the microsecond, so a request sent from the queue when a sequence
  // finishes is within a microsecond after the step boundary: it joins the next step there, as
  // vLLM's scheduler takes a waiting request into the step after the one that freed its slot.
  double arrival_at(SimTime t) const {
    const double at = to_engine(t), boundary = engine.step_boundary();
    return at >= boundary && at - boundary < speed * to_seconds(micros(1)) ? boundary : at;
  }
  double to_real(double engine_seconds) const {
    return own_clock ? r0 + (engine_seconds - v0) / speed : engine_seconds;
  }

  // The event's fields share the first cache line with the listener's.
  ServingModel& model;
  EventHandle milestone;
  SimTime milestone_at = kNever;
  std::uint32_t first_slot;
  double speed = 1;
  double r0 = 0;
  double v0 = 0;
  // Once its speed has changed; until then the two clocks are one, and a milestone's schedule
  // takes its time without a division.
  bool own_clock = false;
  EngineReplica engine;
};

ServingModel::~ServingModel() = default;

ServingModel::ServingModel(Simulation& sim, const ServingConfig& config, RngStream rng)
    : sim_(sim),
      config_(config),
      sampler_(config.service_time, rng),
      ready_(config.concurrency),
      queue_(kInitialQueueCapacity),
      queue_area_at_(sim.now()) {
  FLEETSIM_ASSERT(config.concurrency > 0);
  FLEETSIM_ASSERT(!config.queue_timeout || config.queue_timeout->count() >= 0);
}

// ---- Arrivals --------------------------------------------------------------------------------

void ServingModel::attach(TrafficSource& source) {
  FLEETSIM_ASSERT(source_ == nullptr);
  source_ = &source;
  arrivals_ = sim_.add_lane();
  source.fast_forward(sim_.now());
  schedule_next_arrival();
}

void ServingModel::schedule_next_arrival() {
  for (;;) {
    std::optional<Request> next = source_->next();
    if (!next) return;
    if (next->arrival < sim_.now()) continue;  // only before attach: arrivals never decrease
    pending_ = *next;
    sim_.schedule_lane(arrivals_, pending_.arrival, Phase::Workload, *this,
                       Tag{TagKind::Arrival}.pack());
    return;
  }
}

void ServingModel::arrive(std::uint32_t input_tokens, std::uint32_t output_tokens) {
  arrive_at(sim_.now(), input_tokens, output_tokens);
}

void ServingModel::arrive_at(SimTime now, std::uint32_t input_tokens, std::uint32_t output_tokens) {
  ++arrived_;
  const Queued request{
      .arrival = now, .input_tokens = input_tokens, .output_tokens = output_tokens};
  // The queue is empty whenever a Ready replica has a free slot.
  if (!ready_.empty()) {
    catch_up_engines(now);
    const ReadyReplicas::Choice best = ready_.best();
    if (has_room(best)) {
      start(best.replica, now, request);
      return;
    }
  }
  expire_front(now);
  if (config_.max_queue != 0 && queue_size() >= config_.max_queue) {
    drop_queued(request, now, DropReason::QueueFull);
    return;
  }
  note_queue_change(now);
  queue_push(request);
  // A queue waits for the first slot to free: from now on every engine reports on time.
  if (lazy_ && queue_count_ == 1) {
    for (std::uint32_t i = 0; i < replicas_.size(); ++i) schedule_milestone(i);
  }
}

// ---- Events ----------------------------------------------------------------------------------

void ServingModel::on_event(SimTime now, std::uint64_t tag) {
  const auto [kind, index, generation] = Tag::unpack(tag);
  switch (kind) {
    case TagKind::Arrival: {
      const Request request = pending_;
      arrive_at(now, request.input_tokens, request.output_tokens);
      schedule_next_arrival();
      return;
    }
    case TagKind::Completion:
      complete(index, generation, now);
      return;
    case TagKind::Ready: {
      const Replica& r = replicas_[index];
      if (Tag::same_generation(r.generation, generation) && r.state == ReplicaState::Starting) {
        make_ready(index);
      }
      return;
    }
    case TagKind::Milestone: {
      Replica& r = replicas_[index];
      if (!Tag::same_generation(r.generation, generation) || !r.engine) return;
      Engine& e = *r.engine;
      e.milestone_at = kNever;
      // The event is the milestone rounded up to the microsecond: run at least to it.
      e.engine.advance(std::max(e.to_engine(now), e.engine.next_milestone()));
      settle_engine(index, now);
      return;
    }
  }
}

void ServingModel::start(std::uint32_t replica, SimTime now, const Queued& request) {
  Replica& r = replicas_[replica];
  FLEETSIM_ASSERT(r.state == ReplicaState::Ready && r.free_slot != kNone);
  const std::uint32_t slot_index = r.free_slot;
  Slot& slot = slots_[slot_index];
  r.free_slot = slot.next_free;
  if (r.in_flight == 0) {
    r.busy_since = now;
    note_busy(r, true, now);
  }
  ready_.move(replica, r.in_flight, r.in_flight + 1);
  ++r.in_flight;
  ++in_flight_;

  slot.arrival = request.arrival;
  slot.start = now;
  slot.input_tokens = request.input_tokens;
  slot.output_tokens = request.output_tokens;
  slot.busy = true;
  if (r.engine) {
    slot.first_token = kNever;  // until the engine says
    r.engine->engine.add(r.engine->arrival_at(now), slot_index - r.engine->first_slot,
                         request.input_tokens, request.output_tokens);
    settle_engine(replica, now);
    return;
  }
  const ServiceTimes times = sampler_.draw(r.rates, request.input_tokens, request.output_tokens,
                                           r.in_flight, config_.concurrency);
  slot.first_token = saturating_add(now, times.to_first_token);
  slot.completion = sim_.schedule_at(saturating_add(now, times.total), Phase::Workload, *this,
                                     Tag{TagKind::Completion, slot_index, slot.generation}.pack());
}

void ServingModel::complete(std::uint32_t slot_index, std::uint32_t generation, SimTime now) {
  const Slot& slot = slots_[slot_index];
  if (!Tag::same_generation(slot.generation, generation) || !slot.busy) return;  // cancelled
  release(slot_index, now, DropReason::None);
  dispatch_queue(now);
}

void ServingModel::release(std::uint32_t slot_index, SimTime at, DropReason drop) {
  Slot& slot = slots_[slot_index];
  const std::uint32_t replica = slot_index / config_.concurrency;
  Replica& r = replicas_[replica];
  report({.arrival = slot.arrival,
          .start = slot.start,
          .first_token = std::min(slot.first_token, at),
          .completion = at,
          .input_tokens = slot.input_tokens,
          .output_tokens = slot.output_tokens,
          .replica = r.id,
          .dropped = drop != DropReason::None,
          .drop_reason = drop});
  if (drop == DropReason::None) {
    ++served_;
    ++r.served;
  } else {
    ++dropped_;
  }
  --in_flight_;
  ++slot.generation;
  slot.busy = false;
  slot.next_free = r.free_slot;
  r.free_slot = slot_index;
  if (--r.in_flight == 0) {
    r.busy += at - r.busy_since;
    note_busy(r, false, sim_.now());
  }

  if (r.state == ReplicaState::Ready) {
    ready_.move(replica, r.in_flight + 1, r.in_flight);
  } else if (r.state == ReplicaState::Terminating && r.in_flight == 0) {
    const ReplicaId id = r.id;
    const SimDuration busy = r.busy;
    retire(replica);
    if (listener_ != nullptr) listener_->on_replica_drained(id, at, busy);
  }
}

void ServingModel::settle_engine(std::uint32_t replica, SimTime now) {
  // In the order it happened (the replica's busy time ends at its last finish). Handling news
  // may retire the replica, whose listener may call back in: each piece is taken before it is
  // handled. News is about slots, which stay valid.
  while (news_read_ < engine_news_.size()) {
    const EngineNews news = engine_news_[news_read_++];
    const Slot& slot = slots_[news.slot];
    const SimTime at = std::clamp(to_sim_time(news.at), slot.start, now);
    release(news.slot, at, news.rejected ? DropReason::TooLong : DropReason::None);
  }
  engine_news_.clear();
  news_read_ = 0;
  schedule_milestone(replica);
  dispatch_queue(now);
}

void ServingModel::schedule_milestone(std::uint32_t replica) {
  Replica& r = replicas_[replica];
  if (!r.engine) return;
  Engine& e = *r.engine;
  const double next = e.to_real(e.engine.next_milestone());
  next_milestones_.set(replica, next);
  const SimTime at = std::isinf(next) || !milestones_on_time(r)
                         ? kNever
                         : SimTime{micros(static_cast<std::int64_t>(std::ceil(next * 1e6 - 1e-3)))};
  if (at == e.milestone_at) return;
  if (e.milestone_at != kNever) sim_.cancel(e.milestone);
  e.milestone_at = at;
  if (at != kNever) {
    e.milestone = sim_.schedule_at(std::max(at, sim_.now()), Phase::Workload, *this,
                                   Tag{TagKind::Milestone, replica, r.generation}.pack());
  }
}

// ---- The queue -------------------------------------------------------------------------------

void ServingModel::dispatch_queue(SimTime now) {
  while (queue_size() > 0 && !ready_.empty()) {
    const ReadyReplicas::Choice best = ready_.best();
    if (!has_room(best)) return;
    expire_front(now);
    if (queue_size() == 0) return;
    const Queued request = queue_front();
    note_queue_change(now);
    queue_pop();
    start(best.replica, now, request);
  }
}

void ServingModel::catch_up() {
  catch_up_engines(sim_.now());
  for (Replica& r : replicas_) {
    if (r.engine) r.engine->engine.sync(r.engine->to_engine(sim_.now()));
  }
  expire_front(sim_.now());
}

void ServingModel::catch_up_engines(SimTime now) {
  const double clock = engine_clock(now);
  if (!lazy_ || next_milestones_.earliest() > clock) return;  // a third of arrivals find none
  // In index order; settling one may move another's milestone, which the next look-up sees.
  for (std::size_t i = next_milestones_.first_due(0, clock); i != MilestoneTree::kNone;
       i = next_milestones_.first_due(i + 1, clock)) {
    Engine& e = *replicas_[i].engine;
    e.engine.advance(e.to_engine(now));
    settle_engine(static_cast<std::uint32_t>(i), now);
  }
}

void ServingModel::expire_front(SimTime now) {
  if (!config_.queue_timeout) return;
  const SimDuration timeout = *config_.queue_timeout;
  while (queue_size() > 0 && now - queue_front().arrival >= timeout) {
    const Queued request = queue_front();
    const SimTime deadline = request.arrival + timeout;
    note_queue_change(now);
    // It left the queue at its deadline, not now: take back the time it sat there unnoticed.
    queue_area_ -= static_cast<double>((now - deadline).count());
    queue_pop();
    drop_queued(request, deadline, DropReason::QueueTimeout);
  }
}

void ServingModel::drop_queued(const Queued& request, SimTime at, DropReason reason) {
  ++dropped_;
  report({.arrival = request.arrival,
          .start = at,
          .first_token = at,
          .completion = at,
          .input_tokens = request.input_tokens,
          .output_tokens = request.output_tokens,
          .dropped = true,
          .drop_reason = reason});
}

void ServingModel::note_queue_change(SimTime now) {
  queue_area_ +=
      static_cast<double>(queue_size()) * static_cast<double>((now - queue_area_at_).count());
  queue_area_at_ = now;
}

void ServingModel::queue_push(const Queued& request) {
  if (queue_count_ == queue_.size()) {
    // Unroll the ring into a buffer twice the size; amortized, never per request.
    std::vector<Queued> bigger(queue_.size() * 2);
    for (std::size_t i = 0; i < queue_count_; ++i) {
      bigger[i] = queue_[(queue_head_ + i) & (queue_.size() - 1)];
    }
    queue_ = std::move(bigger);
    queue_head_ = 0;
  }
  queue_[(queue_head_ + queue_count_) & (queue_.size() - 1)] = request;
  ++queue_count_;
}

void ServingModel::queue_pop() {
  queue_head_ = (queue_head_ + 1) & (queue_.size() - 1);
  --queue_count_;
}

void ServingModel::report(const RequestOutcome& outcome) {
  if (observer_ != nullptr) observer_->on_request_done(outcome);
}

// ---- Replicas --------------------------------------------------------------------------------

std::uint32_t ServingModel::find(ReplicaId id) const {
  for (std::size_t i = 0; i < replicas_.size(); ++i) {
    if (replicas_[i].id == id && replicas_[i].state != ReplicaState::Gone) {
      return static_cast<std::uint32_t>(i);
    }
  }
  return kNone;
}

void ServingModel::add_replica(const ReplicaSpec& spec, std::optional<SimTime> ready_at) {
  FLEETSIM_ASSERT(spec.id != kNoReplica && find(spec.id) == kNone);
  const std::uint32_t c = config_.concurrency;
  std::uint32_t index = free_replica_;
  if (index != kNone) {
    free_replica_ = replicas_[index].next_free;
  } else {
    // Growth happens on scale-up, not per request.
    index = static_cast<std::uint32_t>(replicas_.size());
    replicas_.emplace_back();
    next_milestones_.push_back();
    slots_.resize(slots_.size() + c);
  }
  Replica& r = replicas_[index];
  const std::uint32_t generation = r.generation + 1;
  r = Replica{.capacity = c,
              .state = ReplicaState::Starting,
              .id = spec.id,
              .generation = generation,
              .rates = spec.rates};
  FLEETSIM_ASSERT(!std::holds_alternative<LlmServiceTime>(config_.service_time) ||
                  spec.rates.prefill_tokens_per_s > 0);
  if (std::holds_alternative<EngineServiceTime>(config_.service_time)) {
    FLEETSIM_ASSERT(spec.engine != nullptr);
    r.engine = std::make_unique<Engine>(*this, index, *spec.engine);
    r.capacity = std::min(c, spec.engine->limits().max_num_seqs);
    if (spec.time_slice.gpus != nullptr) {
      FLEETSIM_ASSERT(time_slices_ == nullptr || time_slices_ == spec.time_slice.gpus);
      time_slices_ = spec.time_slice.gpus;
      r.seat = spec.time_slice.handle;
      time_slices_->attach(r.seat, *this, index);
    }
  }
  // Thread the replica's slots into its free list, lowest index first.
  for (std::uint32_t k = c; k-- > 0;) {
    Slot& slot = slots_[index * c + k];
    slot.busy = false;
    slot.next_free = r.free_slot;
    r.free_slot = index * c + k;
  }
  ++live_replicas_;
  if (ready_at && *ready_at <= sim_.now()) {
    make_ready(index);
  } else if (ready_at) {
    sim_.schedule_at(*ready_at, Phase::Workload, *this,
                     Tag{TagKind::Ready, index, r.generation}.pack());
  }
}

void ServingModel::set_ready(ReplicaId id) {
  const std::uint32_t index = find(id);
  if (index != kNone && replicas_[index].state == ReplicaState::Starting) make_ready(index);
}

void ServingModel::make_ready(std::uint32_t replica) {
  Replica& r = replicas_[replica];
  r.state = ReplicaState::Ready;
  ready_.insert(replica, r.id, r.in_flight);
  dispatch_queue(sim_.now());
}

void ServingModel::begin_termination(ReplicaId id) {
  catch_up_engines(sim_.now());
  const std::uint32_t index = find(id);
  if (index == kNone) return;
  Replica& r = replicas_[index];
  if (r.state == ReplicaState::Terminating) return;
  if (r.state == ReplicaState::Ready) ready_.remove(index, r.in_flight);
  r.state = ReplicaState::Terminating;
  if (r.in_flight == 0) {
    const SimDuration busy = r.busy;
    retire(index);
    if (listener_ != nullptr) listener_->on_replica_drained(id, sim_.now(), busy);
  } else {
    schedule_milestone(index);  // a draining replica's last finish is news at once
  }
}

void ServingModel::kill_replica(ReplicaId id) {
  const SimTime now = sim_.now();
  catch_up_engines(now);  // what finished before now was served
  const std::uint32_t index = find(id);
  if (index == kNone) return;
  Replica& r = replicas_[index];
  if (r.engine) r.engine->engine.sync(r.engine->to_engine(now));  // first tokens before now count
  if (r.state == ReplicaState::Ready) ready_.remove(index, r.in_flight);
  const std::uint32_t c = config_.concurrency;
  for (std::uint32_t k = 0; k < c; ++k) {
    Slot& slot = slots_[index * c + k];
    if (!slot.busy) continue;
    if (!r.engine) sim_.cancel(slot.completion);
    ++slot.generation;
    slot.busy = false;
    ++dropped_;
    --in_flight_;
    report({.arrival = slot.arrival,
            .start = slot.start,
            .first_token = std::min(slot.first_token, now),
            .completion = now,
            .input_tokens = slot.input_tokens,
            .output_tokens = slot.output_tokens,
            .replica = r.id,
            .dropped = true,
            .drop_reason = DropReason::ReplicaKilled});
  }
  if (r.in_flight > 0) {
    r.busy += now - r.busy_since;
    r.in_flight = 0;
    note_busy(r, false, now);
  }
  retire(index);
}

void ServingModel::retire(std::uint32_t replica) {
  Replica& r = replicas_[replica];
  FLEETSIM_ASSERT(r.in_flight == 0);
  retired_busy_ += r.busy;
  if (r.seat != kNone) {
    time_slices_->detach(r.seat);
    r.seat = kNone;
  }
  if (r.engine) {
    const EngineReplica& e = r.engine->engine;
    retired_engines_.preemptions += e.preemptions();
    retired_engines_.peak_running = std::max(retired_engines_.peak_running, e.peak_running());
    retired_engines_.peak_kv_cache_usage =
        std::max(retired_engines_.peak_kv_cache_usage, e.peak_kv_usage());
    if (r.engine->milestone_at != kNever) sim_.cancel(r.engine->milestone);
    r.engine.reset();
    next_milestones_.set(replica, kNoMilestone);
  }
  r.state = ReplicaState::Gone;
  ++r.generation;  // a pending Ready event for this entry is now stale
  r.next_free = free_replica_;
  free_replica_ = replica;
  --live_replicas_;
}

void ServingModel::note_busy(Replica& r, bool busy, SimTime now) {
  if (r.seat != kNone) time_slices_->set_busy(r.seat, busy, now);
}

// The engine's clock reads the same at `now` before and after: only its rate changes. First
// tokens of a lead step that has ended are reported first, on the old rate (the engine tells
// them late, at its next milestone). A milestone due now (its event not yet run) is rescheduled
// to now; its news lands within the microsecond its event was rounded to.
void ServingModel::on_speed(std::uint32_t replica, double speed, SimTime now) {
  Replica& r = replicas_[replica];
  if (!r.engine) return;
  Engine& e = *r.engine;
  e.engine.sync(e.to_engine(now));
  e.v0 = e.to_engine(now);
  e.r0 = engine_clock(now);
  e.speed = speed;
  e.own_clock = true;
  schedule_milestone(replica);
}

// ---- Queries ---------------------------------------------------------------------------------

ServingCounters ServingModel::counters() const {
  return {.arrived = arrived_,
          .served = served_,
          .dropped = dropped_,
          .in_flight = in_flight_,
          .queued = queue_size()};
}

std::uint32_t ServingModel::in_flight(ReplicaId id) const {
  const std::uint32_t index = find(id);
  return index == kNone ? 0 : replicas_[index].in_flight;
}

ReplicaLoad ServingModel::load(ReplicaId id) const {
  const std::uint32_t index = find(id);
  if (index == kNone || !replicas_[index].engine) return {};
  const EngineReplica& e = replicas_[index].engine->engine;
  return {.running = e.running(),
          .waiting = e.waiting(),
          .kv_cache_usage = e.kv_usage_at(replicas_[index].engine->to_engine(sim_.now()))};
}

EngineTotals ServingModel::engine_totals() const {
  EngineTotals t = retired_engines_;
  for (const Replica& r : replicas_) {
    if (!r.engine) continue;
    const EngineReplica& e = r.engine->engine;
    t.preemptions += e.preemptions();
    t.peak_running = std::max(t.peak_running, e.peak_running());
    t.peak_kv_cache_usage = std::max(t.peak_kv_cache_usage, e.peak_kv_usage());
  }
  return t;
}

std::uint64_t ServingModel::served_by(ReplicaId id) const {
  const std::uint32_t index = find(id);
  return index == kNone ? 0 : replicas_[index].served;
}

SimDuration ServingModel::busy_time(ReplicaId id) const {
  const std::uint32_t index = find(id);
  if (index == kNone) return SimDuration{};
  const Replica& r = replicas_[index];
  return r.busy + (r.in_flight > 0 ? sim_.now() - r.busy_since : SimDuration{});
}

SimDuration ServingModel::total_busy_time() const {
  SimDuration total = retired_busy_;
  for (const Replica& r : replicas_) {
    if (r.state == ReplicaState::Gone) continue;
    total += r.busy + (r.in_flight > 0 ? sim_.now() - r.busy_since : SimDuration{});
  }
  return total;
}

double ServingModel::queue_length_integral() const {
  return queue_area_ + static_cast<double>(queue_size()) *
                           static_cast<double>((sim_.now() - queue_area_at_).count());
}

}  // namespace fleetsim
