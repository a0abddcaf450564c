#include "fleetsim/serving/fluid_serving.hpp"

#include <algorithm>
#include <cmath>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

constexpr std::uint64_t kTickTag = 0;
// A Ready event names its replica: (id << 1) | 1.
constexpr std::uint64_t ready_tag(ReplicaId id) { return (id << 1) | 1; }

// The most representatives one report spreads a count over: enough for the sketches' quantiles
// over a run's many pieces, few enough to keep a piece cheap. The cursor walks the whole mix.
constexpr std::size_t kSamplesPerReport = 32;

// A terminating replica is drained once less than half a request is left in flight.
constexpr double kDrained = 0.5;

std::uint64_t whole(double& carry, double count) {
  carry += count;
  const double w = std::floor(carry + 1e-9);
  carry = std::max(0.0, carry - w);
  return static_cast<std::uint64_t>(w);
}

}  // namespace

FluidServing::FluidServing(Simulation& sim, const ServingConfig& config, RequestMix mix)
    : sim_(sim), config_(config), mix_(std::move(mix)), now_(sim.now()) {}

FluidServing::~FluidServing() = default;

void FluidServing::attach(TrafficSource& source) {
  FLEETSIM_ASSERT(source_ == nullptr);
  source_ = &source;
  source.fast_forward(now_);
  next_ = source.next();
  while (next_ && next_->arrival < now_) next_ = source.next();
  schedule_tick(now_ + kFluidStep);
}

void FluidServing::schedule_tick(SimTime at) {
  sim_.schedule_at(at, Phase::Workload, *this, kTickTag);
}

void FluidServing::on_event(SimTime now, std::uint64_t tag) {
  if (tag == kTickTag) {
    advance_to(now);
    schedule_tick(now + kFluidStep);
    return;
  }
  advance_to(now);
  if (Replica* r = find(tag >> 1); r != nullptr && r->state == State::Starting)
    r->state = State::Ready;
}

const FluidReplica& FluidServing::curve_for(const StepCost& cost) {
  for (const auto& [c, curve] : curves_)
    if (c == &cost) return *curve;
  curves_.emplace_back(&cost, std::make_unique<FluidReplica>(cost, mix_));
  return *curves_.back().second;
}

FluidServing::Replica* FluidServing::find(ReplicaId id) {
  for (Replica& r : replicas_)
    if (r.id == id) return &r;
  return nullptr;
}

const FluidServing::Replica* FluidServing::find(ReplicaId id) const {
  for (const Replica& r : replicas_)
    if (r.id == id) return &r;
  return nullptr;
}

void FluidServing::remove(ReplicaId id) {
  auto it = std::find_if(replicas_.begin(), replicas_.end(),
                         [&](const Replica& r) { return r.id == id; });
  FLEETSIM_ASSERT(it != replicas_.end());
  busy_gone_ += it->busy;
  replicas_.erase(it);
}

double FluidServing::queued() const {
  double sum = 0;
  for (const Chunk& c : queue_) sum += c.count;
  return sum;
}

// ---- Replicas --------------------------------------------------------------------------------

void FluidServing::add_replica(const ReplicaSpec& spec, std::optional<SimTime> ready_at) {
  FLEETSIM_ASSERT(spec.engine != nullptr && find(spec.id) == nullptr);
  advance_to(sim_.now());
  Replica r{.id = spec.id, .curve = &curve_for(*spec.engine)};
  if (ready_at && *ready_at <= sim_.now()) {
    r.state = State::Ready;
  } else if (ready_at) {
    sim_.schedule_at(*ready_at, Phase::Workload, *this, ready_tag(spec.id));
  }
  replicas_.push_back(r);
}

void FluidServing::set_ready(ReplicaId id) {
  advance_to(sim_.now());
  Replica* r = find(id);
  if (r != nullptr && r->state == State::Starting) r->state = State::Ready;
}

void FluidServing::begin_termination(ReplicaId id) {
  advance_to(sim_.now());
  Replica* r = find(id);
  if (r == nullptr) return;
  if (r->state == State::Starting || r->in_flight < kDrained) {
    report(r->in_flight, sim_.now(), SimDuration{0}, r, DropReason::None);
    remove(id);
    if (listener_ != nullptr) listener_->on_replica_drained(id, sim_.now());
    return;
  }
  r->state = State::Terminating;
}

void FluidServing::kill_replica(ReplicaId id) {
  advance_to(sim_.now());
  Replica* r = find(id);
  if (r == nullptr) return;
  report(r->in_flight, sim_.now(), SimDuration{0}, nullptr, DropReason::ReplicaKilled);
  remove(id);
}

// ---- Integration -----------------------------------------------------------------------------

void FluidServing::advance_to(SimTime t) {
  while (now_ < t) run_piece(now_, std::min(t, now_ + kFluidStep));
}

std::uint64_t FluidServing::count_arrivals(SimTime before) {
  std::uint64_t n = 0;
  while (next_ && next_->arrival < before) {
    ++n;
    next_ = source_->next();
  }
  return n;
}

void FluidServing::run_piece(SimTime from, SimTime to) {
  const double dt = to_seconds(to - from);
  const SimTime mid = from + (to - from) / 2;
  now_ = to;

  if (source_ != nullptr) {
    const std::uint64_t arrivals = count_arrivals(to);
    arrived_ += arrivals;
    if (arrivals > 0) queue_.push_back({mid, static_cast<double>(arrivals)});
  }
  // Beyond max_queue, the newest are turned away.
  if (config_.max_queue > 0) {
    double excess = queued() - static_cast<double>(config_.max_queue);
    while (excess > 0 && !queue_.empty()) {
      const double gone = std::min(excess, queue_.back().count);
      report(gone, queue_.back().arrival, SimDuration{0}, nullptr, DropReason::QueueFull);
      queue_.back().count -= gone;
      excess -= gone;
      if (queue_.back().count <= 0) queue_.pop_back();
    }
  }

  // The Ready replicas take from the queue's head up to their saturation rates.
  double capacity = 0;
  for (const Replica& r : replicas_)
    if (r.state == State::Ready) capacity += r.curve->saturation().rate;
  double room = capacity * dt;
  double admitted = 0, waited = 0;  // Σ count, Σ count × wait (seconds)
  while (!queue_.empty()) {
    Chunk& c = queue_.front();
    if (config_.queue_timeout && c.arrival + *config_.queue_timeout <= mid) {
      report(c.count, c.arrival + *config_.queue_timeout, *config_.queue_timeout, nullptr,
             DropReason::QueueTimeout);
      queue_.pop_front();
      continue;
    }
    if (room <= 0) break;
    const double take = std::min(room, c.count);
    admitted += take;
    waited += take * std::max(0.0, to_seconds(mid - c.arrival));
    room -= take;
    c.count -= take;
    if (c.count > 1e-9) break;
    queue_.pop_front();
  }
  const SimDuration wait = admitted > 0 ? from_seconds(waited / admitted) : SimDuration{0};

  // Each replica's stock of requests in flight, with its share of the admitted rate.
  std::vector<ReplicaId> drained;
  for (Replica& r : replicas_) {
    if (r.state == State::Starting) continue;
    const double rate = r.state == State::Ready && capacity > 0
                            ? admitted / dt * r.curve->saturation().rate / capacity
                            : 0.0;
    r.at = r.curve->at_rate(rate);
    r.latency_s = r.curve->mean_latency(r.at);
    const double steady = rate * r.latency_s;
    const double before = r.in_flight;
    r.in_flight = steady + (before - steady) * std::exp(-dt / r.latency_s);
    const double done = std::max(0.0, rate * dt + before - r.in_flight);
    r.served += whole(r.served_carry, done);
    r.busy += from_seconds(dt * (1 - std::exp(-(before + r.in_flight) / 2)));
    report(done, to, wait, &r, DropReason::None);
    peak_running_ = std::max(peak_running_, r.in_flight);
    if (r.state == State::Terminating && r.in_flight < kDrained) {
      report(r.in_flight, to, wait, &r, DropReason::None);
      drained.push_back(r.id);
    }
  }
  for (ReplicaId id : drained) remove(id);
  for (ReplicaId id : drained)
    if (listener_ != nullptr) listener_->on_replica_drained(id, to);
}

// ---- Reports ---------------------------------------------------------------------------------

void FluidServing::report(double count, SimTime at, SimDuration wait, const Replica* replica,
                          DropReason drop) {
  const std::uint64_t n = whole(report_carry_, count);
  if (n == 0) return;
  if (drop != DropReason::None) {
    dropped_ += n;
  } else {
    served_ += n;
  }
  if (observer_ == nullptr) return;
  const std::span<const RequestMix::Lengths> samples = mix_.samples();
  const std::uint64_t spread = std::min<std::uint64_t>(n, kSamplesPerReport);
  for (std::uint64_t k = 0; k < spread; ++k) {
    const RequestMix::Lengths& s = samples[next_sample_];
    next_sample_ = next_sample_ + 1 == samples.size() ? 0 : next_sample_ + 1;
    const std::uint64_t count_k = n / spread + (k < n % spread ? 1 : 0);
    RequestOutcome o{.input_tokens = s.prompt, .output_tokens = s.output};
    if (drop != DropReason::None) {
      o.arrival = at - wait;
      o.start = o.first_token = o.completion = at;
      o.dropped = true;
      o.drop_reason = drop;
    } else {
      const double ttft = replica->curve->time_to_first_token(s.prompt, replica->at);
      const SimDuration first = from_seconds(ttft);
      const SimDuration rest = from_seconds((s.output - 1) * replica->at.step_seconds);
      o.completion = at;
      o.arrival = at - rest - first - wait;
      o.start = o.arrival + wait;
      o.first_token = o.start + first;
      o.replica = replica->id;
    }
    observer_->on_requests_done(o, count_k);
  }
}

ServingCounters FluidServing::counters() const {
  double in_flight = 0;
  for (const Replica& r : replicas_) in_flight += r.in_flight;
  return {.arrived = arrived_,
          .served = served_,
          .dropped = dropped_,
          .in_flight = static_cast<std::uint64_t>(std::llround(in_flight)),
          .queued = static_cast<std::uint64_t>(std::llround(queued()))};
}

std::uint32_t FluidServing::in_flight(ReplicaId id) const {
  const Replica* r = find(id);
  return r == nullptr ? 0 : static_cast<std::uint32_t>(std::llround(r->in_flight));
}

// vLLM's gauges at the replica's operating point, scaled to the stock it holds now.
ReplicaLoad FluidServing::load(ReplicaId id) const {
  const Replica* r = find(id);
  if (r == nullptr) return {};
  const double share = r->at.running > 0 ? r->in_flight / r->at.running : 0.0;
  return {.running = static_cast<std::uint32_t>(std::llround(r->in_flight)),
          .kv_cache_usage = std::min(1.0, r->at.kv_usage * share)};
}

EngineTotals FluidServing::engine_totals() const {
  double peak_kv = peak_kv_usage_;
  for (const Replica& r : replicas_) peak_kv = std::max(peak_kv, load(r.id).kv_cache_usage);
  return {.peak_running = static_cast<std::uint32_t>(std::llround(peak_running_)),
          .peak_kv_cache_usage = peak_kv};
}

std::uint64_t FluidServing::served_by(ReplicaId id) const {
  const Replica* r = find(id);
  return r == nullptr ? 0 : r->served;
}

SimDuration FluidServing::busy_time(ReplicaId id) const {
  const Replica* r = find(id);
  return r == nullptr ? SimDuration{0} : r->busy;
}

SimDuration FluidServing::total_busy_time() const {
  SimDuration sum = busy_gone_;
  for (const Replica& r : replicas_) sum += r.busy;
  return sum;
}

// Requests in flight are taken to have arrived half their latency ago.
void FluidServing::for_each_unfinished(const UnfinishedVisitor& f) const {
  for (const Chunk& c : queue_) {
    const auto n = static_cast<std::uint64_t>(std::llround(c.count));
    if (n > 0) f(c.arrival, std::nullopt, n);
  }
  for (const Replica& r : replicas_) {
    const auto n = static_cast<std::uint64_t>(std::llround(r.in_flight));
    if (n == 0) continue;
    const SimTime arrival = now_ - from_seconds(r.latency_s / 2);
    const SimTime first = arrival + from_seconds(r.curve->time_to_first_token(
                                        static_cast<std::uint32_t>(mix_.prompt()), r.at));
    f(arrival, first <= now_ ? std::optional<SimTime>(first) : std::nullopt, n);
  }
}

}  // namespace fleetsim
