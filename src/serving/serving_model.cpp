#include "fleetsim/serving/serving_model.hpp"

#include <algorithm>
#include <utility>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// The queue's first allocation; it doubles from there and never shrinks.
constexpr std::size_t kInitialQueueCapacity = 64;

}  // namespace

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
  source.fast_forward(sim_.now());
  schedule_next_arrival();
}

void ServingModel::schedule_next_arrival() {
  for (;;) {
    std::optional<Request> next = source_->next();
    if (!next) return;
    if (next->arrival < sim_.now()) continue;  // only before attach: arrivals never decrease
    pending_ = *next;
    sim_.schedule_at(pending_.arrival, Phase::Workload, *this, Tag{TagKind::Arrival}.pack());
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
    const ReadyReplicas::Choice best = ready_.best();
    if (best.in_flight < config_.concurrency) {
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
  }
}

void ServingModel::start(std::uint32_t replica, SimTime now, const Queued& request) {
  Replica& r = replicas_[replica];
  FLEETSIM_ASSERT(r.state == ReplicaState::Ready && r.free_slot != kNone);
  const std::uint32_t slot_index = r.free_slot;
  Slot& slot = slots_[slot_index];
  r.free_slot = slot.next_free;
  if (r.in_flight == 0) r.busy_since = now;
  ready_.move(replica, r.in_flight, r.in_flight + 1);
  ++r.in_flight;
  ++in_flight_;

  const ServiceTimes times = sampler_.draw(r.rates, request.input_tokens, request.output_tokens,
                                           r.in_flight, config_.concurrency);
  slot.arrival = request.arrival;
  slot.start = now;
  slot.first_token = saturating_add(now, times.to_first_token);
  slot.input_tokens = request.input_tokens;
  slot.output_tokens = request.output_tokens;
  slot.busy = true;
  slot.completion = sim_.schedule_at(saturating_add(now, times.total), Phase::Workload, *this,
                                     Tag{TagKind::Completion, slot_index, slot.generation}.pack());
}

void ServingModel::complete(std::uint32_t slot_index, std::uint32_t generation, SimTime now) {
  Slot& slot = slots_[slot_index];
  if (!Tag::same_generation(slot.generation, generation) || !slot.busy) return;  // cancelled
  const std::uint32_t replica = slot_index / config_.concurrency;
  Replica& r = replicas_[replica];
  report({.arrival = slot.arrival,
          .start = slot.start,
          .first_token = slot.first_token,
          .completion = now,
          .input_tokens = slot.input_tokens,
          .output_tokens = slot.output_tokens,
          .replica = r.id});
  ++served_;
  ++r.served;
  --in_flight_;
  ++slot.generation;
  slot.busy = false;
  slot.next_free = r.free_slot;
  r.free_slot = slot_index;
  if (--r.in_flight == 0) r.busy += now - r.busy_since;

  if (r.state == ReplicaState::Ready) {
    ready_.move(replica, r.in_flight + 1, r.in_flight);
    dispatch_queue(now);
  } else if (r.state == ReplicaState::Terminating && r.in_flight == 0) {
    const ReplicaId id = r.id;
    retire(replica);
    if (listener_ != nullptr) listener_->on_replica_drained(id, now);
  }
}

// ---- The queue -------------------------------------------------------------------------------

void ServingModel::dispatch_queue(SimTime now) {
  while (queue_size() > 0 && !ready_.empty()) {
    const ReadyReplicas::Choice best = ready_.best();
    if (best.in_flight >= config_.concurrency) return;
    expire_front(now);
    if (queue_size() == 0) return;
    const Queued request = queue_front();
    note_queue_change(now);
    queue_pop();
    start(best.replica, now, request);
  }
}

void ServingModel::expire_queue() { expire_front(sim_.now()); }

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
    slots_.resize(slots_.size() + c);
  }
  Replica& r = replicas_[index];
  const std::uint32_t generation = r.generation + 1;
  r = Replica{.id = spec.id,
              .rates = spec.rates ? *spec.rates : default_llm_rates(spec.gpu),
              .state = ReplicaState::Starting,
              .generation = generation};
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
  const std::uint32_t index = find(id);
  if (index == kNone) return;
  Replica& r = replicas_[index];
  if (r.state == ReplicaState::Terminating) return;
  if (r.state == ReplicaState::Ready) ready_.remove(index, r.in_flight);
  r.state = ReplicaState::Terminating;
  if (r.in_flight == 0) {
    retire(index);
    if (listener_ != nullptr) listener_->on_replica_drained(id, sim_.now());
  }
}

void ServingModel::kill_replica(ReplicaId id) {
  const std::uint32_t index = find(id);
  if (index == kNone) return;
  const SimTime now = sim_.now();
  Replica& r = replicas_[index];
  if (r.state == ReplicaState::Ready) ready_.remove(index, r.in_flight);
  const std::uint32_t c = config_.concurrency;
  for (std::uint32_t k = 0; k < c; ++k) {
    Slot& slot = slots_[index * c + k];
    if (!slot.busy) continue;
    sim_.cancel(slot.completion);
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
  if (r.in_flight > 0) r.busy += now - r.busy_since;
  r.in_flight = 0;
  retire(index);
}

void ServingModel::retire(std::uint32_t replica) {
  Replica& r = replicas_[replica];
  FLEETSIM_ASSERT(r.in_flight == 0);
  retired_busy_ += r.busy;
  r.state = ReplicaState::Gone;
  ++r.generation;  // a pending Ready event for this entry is now stale
  r.next_free = free_replica_;
  free_replica_ = replica;
  --live_replicas_;
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
