#include "fleetsim/serving/fluid_serving.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "fleetsim/core/error.hpp"
#include "fleetsim/serving/jsq_busy.hpp"

namespace fleetsim {

namespace {

constexpr std::uint64_t kTickTag = 0;
// A Ready event names its replica: (id << 1) | 1.
constexpr std::uint64_t ready_tag(ReplicaId id) { return (id << 1) | 1; }

// Representatives per report interval: the sketches' quantiles of an interval (its p99 in the
// timeseries) from evenly spread output lengths (RequestMix::at_quantile) are as close to the
// request level's with 400 as they were with 960 taken in turn from the mix (llm-inference and
// spot-first at 5-minute intervals: median error 8 and 6 %). A piece takes its share of them, at
// least kMinRepresentatives, for a run's quantiles, and at most kMaxRepresentativesPerSecond of
// its length, for short intervals (16 a piece of 5 s).
constexpr double kRepresentativesPerInterval = 400;
constexpr std::size_t kMinRepresentatives = 4;
constexpr double kMaxRepresentativesPerSecond = 3.2;

std::size_t representatives_for(double piece_s, double interval_s) {
  const double share = std::ceil(kRepresentativesPerInterval * piece_s / interval_s);
  const double most = std::ceil(kMaxRepresentativesPerSecond * piece_s);
  return std::max(kMinRepresentatives, static_cast<std::size_t>(std::min(share, most)));
}

// The router's M/G/c wait reads the offered load λW, a mean: the arrival rate is smoothed over so
// many holding times, since the stocks (and a piece's rate) move with the arrival counts' noise,
// and Erlang C, steep near its slots, turns each upward swing into a wait the router never sees.
constexpr double kOfferedSmoothing = 10;

// A measured engine's waits (KvBoundTable) are those of a steady load, which its Poisson counts
// vary about, and they are steep near saturation: they are read at the arrival rate smoothed over
// this much at least. A queue that the counts' noise builds for a moment is in them; a load above
// saturation reads the engine full.
constexpr double kLoadSmoothing_s = 120;

// A terminating replica is drained once less than half a request is left in flight.
constexpr double kDrained = 0.5;

// splitmix64's finalizer: a counter-based draw, so a const gauge read stays deterministic.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// ⌊x⌋ for x < 2^63, without a call to floor where x ≥ 0 (every representative and replica takes
// two).
double whole_part(double x) {
  return x >= 0 ? static_cast<double>(static_cast<std::int64_t>(x)) : std::floor(x);
}

// Low-discrepancy quantiles for the k-th representative (Weyl sequences): the rest of the step
// it waits out, its steps with a prompt, its waits for a slot and behind the queue, spread evenly
// and independently of its lengths.
double weyl(std::size_t k, double alpha) {
  const double x = (static_cast<double>(k) + 0.5) * alpha;
  return x - whole_part(x);
}
constexpr double kGolden = 0.6180339887498949;
constexpr double kSilver = 0.4142135623730951;
constexpr double kPlastic = 0.7548776662466927;
constexpr double kSqrt3 = 0.7320508075688772;  // √3 − 1, for the lengths
constexpr double kSqrt7 = 0.6457513110645906;  // √7 − 2, for the queue position

// Σ_{k<r} w(k) P(N = k) for N Poisson with this mean, the probabilities by their recurrence
// (P(0) = e^−mean underflows only far above the r a fleet has, where the callers stop first).
template <typename Weight>
double poisson_sum_below(double mean, double r, Weight w) {
  double p = std::exp(-mean), sum = 0;
  const auto top = static_cast<int>(std::ceil(r));
  for (int k = 0; k < top; ++k) {
    sum += w(k) * p;
    p *= mean / (k + 1);
  }
  return sum;
}

// E[min(N, r)] for N Poisson with this mean: r − Σ_{k<r} (r − k) P(N = k). Far above r every
// replica is busy.
double expected_min_poisson(double mean, double r) {
  if (mean <= 0) return 0;
  if (mean - r > 8 * std::sqrt(mean)) return r;
  return std::max(0.0, r - poisson_sum_below(mean, r, [&](int k) { return r - k; }));
}

// by_id_'s order.
constexpr auto kIdBelow = [](const std::pair<ReplicaId, std::uint32_t>& entry, ReplicaId id) {
  return entry.first < id;
};

// What a replica's piece reads, bit for bit: replicas with the same compute the same.
struct StockInputs {
  std::uint64_t bits[5] = {};
  const FluidReplica* curve = nullptr;
  int state = -1;
  bool operator==(const StockInputs&) const = default;
};

// e^(−dt ÷ w), computed again only when w changes: replicas that share a latency share it.
class Decay {
 public:
  explicit Decay(double dt) : dt_(dt) {}
  double operator()(double w) {
    if (w != w_) value_ = std::exp(-dt_ / (w_ = w));
    return value_;
  }

 private:
  double dt_, w_ = -1, value_ = 0;
};

std::uint64_t whole(double& carry, double count) {
  carry += count;
  const double w = whole_part(carry + 1e-9);
  carry = std::max(0.0, carry - w);
  return static_cast<std::uint64_t>(w);
}

}  // namespace

FluidServing::FluidServing(Simulation& sim, const ServingConfig& config, RequestMix mix,
                           RngStream rng, FluidPacing pacing)
    : sim_(sim),
      config_(config),
      mix_(std::move(mix)),
      pacing_(pacing),
      now_(sim.now()),
      gauge_seed_(rng.next_u64()) {
  FLEETSIM_ASSERT(pacing.scrape_interval > SimDuration{0} &&
                  pacing.report_interval > SimDuration{0});
  parts_ = (pacing.scrape_interval.count() + kFluidStep.count() - 1) / kFluidStep.count();
  calm_parts_ = (pacing.scrape_interval.count() + kCalmStep.count() - 1) / kCalmStep.count();
  representatives_ =
      representatives_for(to_seconds(kFluidStep), to_seconds(pacing.report_interval));
}

FluidServing::~FluidServing() = default;

void FluidServing::attach(TrafficSource& source) {
  FLEETSIM_ASSERT(source_ == nullptr);
  source_ = &source;
  source.fast_forward(now_);
  drawn_counts_ = source.count_until(now_).has_value();
  if (!drawn_counts_) {
    next_ = source.next();
    while (next_ && next_->arrival < now_) next_ = source.next();
  }
  schedule_tick(next_piece_end(now_));
}

void FluidServing::schedule_tick(SimTime at) {
  sim_.schedule_at(at, Phase::Workload, *this, kTickTag);
}

void FluidServing::on_event(SimTime now, std::uint64_t tag) {
  if (tag == kTickTag) {
    advance_to(now);
    schedule_tick(next_piece_end(now));
    return;
  }
  advance_to(now);
  if (Replica* r = find(tag >> 1); r != nullptr && r->state == State::Starting)
    r->state = State::Ready;
}

// A request longer than the engine takes is refused at once (DropReason::TooLong): the curve
// runs on the rest.
const FluidServing::Curve& FluidServing::curve_for(const StepCost& cost) {
  for (const Curve& c : curves_)
    if (c.cost == &cost) return c;
  Curve c{.cost = &cost};
  std::vector<RequestMix::Lengths> taken;
  for (const RequestMix::Lengths& l : mix_.samples())
    if (cost.accepts(l.prompt, l.output)) taken.push_back(l);
  const auto all = static_cast<double>(mix_.samples().size());
  // One that takes none serves nothing: it refuses all but a millionth.
  c.accepted = std::max(1e-6, static_cast<double>(taken.size()) / all);
  if (!taken.empty() && taken.size() < mix_.samples().size())
    c.taken = std::make_unique<RequestMix>(std::move(taken));
  c.replica = std::make_unique<FluidReplica>(cost, c.taken ? *c.taken : mix_);
  curves_.push_back(std::move(c));
  return curves_.back();
}

// A scrape reads one pod three times in a row (load, served_by, busy_time), and its pods in the
// order they were added, as replicas_ holds them: the last position found and the next are tried
// first.
std::uint32_t FluidServing::position(ReplicaId id) const {
  for (std::uint32_t i = last_found_; i < last_found_ + 2 && i < replicas_.size(); ++i) {
    if (replicas_[i].id != id) continue;
    last_found_ = i;
    return i;
  }
  const auto it = std::lower_bound(by_id_.begin(), by_id_.end(), id, kIdBelow);
  if (it == by_id_.end() || it->first != id) return static_cast<std::uint32_t>(replicas_.size());
  last_found_ = it->second;
  return last_found_;
}

FluidServing::Replica* FluidServing::find(ReplicaId id) {
  ++revision_;  // the caller may change the replica
  const std::uint32_t i = position(id);
  return i < replicas_.size() ? &replicas_[i] : nullptr;
}

const FluidServing::Replica* FluidServing::find(ReplicaId id) const {
  const std::uint32_t i = position(id);
  return i < replicas_.size() ? &replicas_[i] : nullptr;
}

SimDuration FluidServing::remove(ReplicaId id) {
  const std::uint32_t i = position(id);
  FLEETSIM_ASSERT(i < replicas_.size());
  const Replica& r = replicas_[i];
  const SimDuration busy = r.busy;
  busy_gone_ += busy;
  if (r.seat != kNoSeat) time_slices_->detach(r.seat);
  replicas_.erase(replicas_.begin() + i);
  std::erase_if(by_id_, [&](const auto& entry) { return entry.first == id; });
  for (auto& entry : by_id_)
    if (entry.second > i) --entry.second;
  ++revision_;
  return busy;
}

// ---- Replicas --------------------------------------------------------------------------------

void FluidServing::add_replica(const ReplicaSpec& spec, std::optional<SimTime> ready_at) {
  FLEETSIM_ASSERT(spec.engine != nullptr && find(spec.id) == nullptr);
  advance_to(sim_.now());
  const Curve& curve = curve_for(*spec.engine);
  Replica r{.id = spec.id,
            .curve = curve.replica.get(),
            .accepted = curve.accepted,
            .at = curve.replica->at_rate(0)};
  if (spec.time_slice.gpus != nullptr) {
    time_slices_ = spec.time_slice.gpus;
    r.seat = spec.time_slice.handle;
    time_slices_->attach(r.seat, *this, static_cast<std::uint32_t>(spec.id));
  }
  if (ready_at && *ready_at <= sim_.now()) {
    r.state = State::Ready;
  } else if (ready_at) {
    sim_.schedule_at(*ready_at, Phase::Workload, *this, ready_tag(spec.id));
  }
  const auto at = std::lower_bound(by_id_.begin(), by_id_.end(), spec.id, kIdBelow);
  by_id_.insert(at, {spec.id, static_cast<std::uint32_t>(replicas_.size())});
  replicas_.push_back(r);
  ++revision_;
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
    report(r->in_flight, sim_.now(), Waiting{}, r, DropReason::None);
    const SimDuration busy = remove(id);
    if (listener_ != nullptr) listener_->on_replica_drained(id, sim_.now(), busy);
    return;
  }
  r->state = State::Terminating;
}

void FluidServing::kill_replica(ReplicaId id) {
  advance_to(sim_.now());
  Replica* r = find(id);
  if (r == nullptr) return;
  report(r->in_flight, sim_.now(), Waiting{}, nullptr, DropReason::ReplicaKilled);
  remove(id);
}

// ---- Integration -----------------------------------------------------------------------------

void FluidServing::advance_to(SimTime t) {
  while (now_ < t) run_piece(now_, std::min(t, next_piece_end(now_)));
}

// anchor + (j + i ÷ parts) × the scrape interval, for whole j and 0 < i ≤ parts: the scrapes are
// hit to the microsecond where the parts do not divide the interval evenly. Calm pieces, while
// nothing waits in the router's queue, are longer: what a piece approximates is then only the
// arrivals' spread over it, and a scrape reads its end either way.
SimTime FluidServing::next_piece_end(SimTime after) const {
  const std::int64_t span = pacing_.scrape_interval.count();
  const std::int64_t offset = (after - pacing_.anchor).count();
  const std::int64_t j = offset >= 0 ? offset / span : -((-offset + span - 1) / span);
  const std::int64_t into = offset - j * span;  // in [0, span)
  const std::int64_t parts = queue_.empty() ? calm_parts_ : parts_;
  std::int64_t i = into * parts / span + 1;
  if (i * span / parts <= into) ++i;  // rounded down onto `after`
  return pacing_.anchor + micros(j * span + i * span / parts);
}

std::uint64_t FluidServing::count_arrivals(SimTime before) {
  if (drawn_counts_) return *source_->count_until(before);
  std::uint64_t n = 0;
  while (next_ && next_->arrival < before) {
    ++n;
    next_ = source_->next();
  }
  return n;
}

void FluidServing::run_piece(SimTime from, SimTime to) {
  ++revision_;
  const double dt = to_seconds(to - from);
  representatives_ = representatives_for(dt, to_seconds(pacing_.report_interval));
  const SimTime mid = from + (to - from) / 2;
  now_ = to;

  // What already waits: free slots take it at the piece's start (the router fills a replica's
  // slots the moment they free, and no more than them).
  double backlog = queue_.size();
  double arrivals = 0, expected = 0;
  if (source_ != nullptr) {
    // The load a measured engine is read at is the source's rate where it is known: the table
    // holds the waits of Poisson arrivals at a rate, and a rate estimated from the counts, steep
    // as the waits are in it, would read them higher on average than they are.
    const std::optional<double> mean =
        drawn_counts_ ? source_->expected_until(to) : std::optional<double>();
    arrivals = static_cast<double>(count_arrivals(to));
    expected = mean.value_or(arrivals);
    arrived_ += static_cast<std::uint64_t>(arrivals);
    queue_.arrive(from, to, arrivals);
  }
  // Beyond max_queue, the newest are turned away; what waited queue_timeout by the piece's middle
  // is dropped.
  if (config_.max_queue > 0) {
    queue_.trim_to(static_cast<double>(config_.max_queue), leaving_);
    for (const FluidQueue::Part& p : leaving_)
      report(p.count, p.arrival, Waiting{}, nullptr, DropReason::QueueFull);
  }
  if (config_.queue_timeout) {
    queue_.time_out(mid - *config_.queue_timeout, leaving_);
    for (const FluidQueue::Part& p : leaving_) {
      backlog -= p.count;  // the oldest go: they waited before the piece
      report(p.count, p.arrival + *config_.queue_timeout,
             Waiting{.dropped_after = *config_.queue_timeout}, nullptr, DropReason::QueueTimeout);
    }
  }
  backlog = std::clamp(backlog, 0.0, queue_.size());  // max_queue turns the newest away first

  // Free slots take arrivals at once; beyond them, the Ready replicas take from the queue's head up
  // to their saturation rates.
  time_slice_speeds();
  double capacity = 0, free_slots = 0;
  ready_ = 0;
  for (const Replica& r : replicas_) {
    if (r.state != State::Ready) continue;
    ready_ += 1;
    const double taken = r.curve->saturation().rate * r.speed;
    capacity += r.accepted < 1 ? taken / r.accepted : taken;  // what it is sent
    free_slots += std::max(0.0, r.curve->saturation().running - r.in_flight);
  }
  // Slots that start together from a backlog complete as a renewal process from its start, which
  // lags the steady flow by (1 − c²) ÷ 2 requests a slot, c² the service times' squared
  // coefficient of variation, the output lengths' (an ordinary renewal count is
  // t ÷ μ + (σ² − μ²) ÷ 2μ², an equilibrium one t ÷ μ: Cox, "Renewal Theory", 1962, §4.5; the
  // request level's engine, eight slots of log-normal lengths with c² 0.42, lags 2.3–3.5
  // requests over its first minute). Behind the backlog the queue drains that much later: the
  // lag is withheld from what the replicas take next, their slots stay full, and fewer complete.
  const double lag_per_slot = std::max(0.0, 1 - mix_.output_cv2()) / 2;
  const double lagging = std::min(lag_owed_, capacity * dt);
  const double admitted = queue_.admit(from, to, free_slots, capacity - lagging / dt);
  // Of those, the ones that waited fill free slots at once, each replica its own; the rest are
  // shared at the replicas' rates over the piece. A replica that becomes Ready behind a backlog
  // then holds its slots' worth, as the request level's, where a share of the fill by rate had
  // the others hold more than their slots and the queue drained faster than the replicas serve.
  const double fill = std::min({admitted, free_slots, backlog});
  const double flow = admitted - fill;
  // Behind what still waits, the router keeps every Ready replica full: its batch is the
  // saturation's at once, not after its rate has been smoothed over a latency.
  const bool full = !queue_.empty();

  // Each replica's share of the admitted rate, its stock of requests in flight, and its operating
  // point at the rate it has taken over its latency (an engine's batch is what arrived over the
  // last W, not in the last piece: a piece's Poisson count would make it jitter).
  // Replicas of one engine that have taken the same rate for a few minutes agree to the bit: one
  // after another, they reuse the operating point and decays computed for the first of them.
  struct {
    const FluidReplica* curve = nullptr;
    double rate = -1, latency = 0;
    OperatingPoint at;
  } point;
  // The smoothing decays over a replica's last latency and its stock over the new one: one cache
  // each, so that replicas of one latency compute each once.
  Decay smoothing_decay(dt), stock_decay(dt);
  double offered = 0, slots = 0, holding = 0, held = 0, refused = 0;
  // The same holds for whole replicas: one whose state is, to the bit, that of the last replica
  // computed takes its results (a steady fleet's replicas are mostly alike).
  const auto stock_inputs = [](const Replica& r) {
    return StockInputs{
        .bits = {std::bit_cast<std::uint64_t>(r.speed), std::bit_cast<std::uint64_t>(r.latency_s),
                 std::bit_cast<std::uint64_t>(r.smoothed_rate),
                 std::bit_cast<std::uint64_t>(r.in_flight),
                 std::bit_cast<std::uint64_t>(r.count_noise)},
        .curve = r.curve,
        .state = static_cast<int>(r.state)};
  };
  const Replica* twin = nullptr;
  StockInputs twin_inputs;
  for (Replica& r : replicas_) {
    if (r.state == State::Starting) continue;
    const double idle = std::max(0.0, r.curve->saturation().running - r.in_flight);
    const double filled = r.state == State::Ready && fill > 0 ? fill * idle / free_slots : 0.0;
    // A stock a little below its slots is no batch: only slots that idled start together. Where
    // the KV cache binds, the engine admits them as room frees, not together (four A10Gs at
    // gpu_memory_utilization 0.8 lag 1.4–2.0 requests 5–10 s in, and none from 40 s).
    if (idle >= 1 && full && r.curve->measured().empty()) lag_owed_ += filled * lag_per_slot;
    const StockInputs inputs = stock_inputs(r);
    if (twin != nullptr && r.latency_s > 0 && inputs == twin_inputs) {
      r.rate = twin->rate;
      r.smoothed_rate = twin->smoothed_rate;
      r.at = twin->at;
      r.latency_s = twin->latency_s;
      r.in_flight = twin->in_flight;
      r.count_noise = twin->count_noise;
      r.done = twin->done;
      r.mean_in_flight = twin->mean_in_flight;
    } else {
      // Of what it is sent, the share it takes; and of the lag withheld, the share it holds late in
      // its slots: its stock and batch are as if it had taken that too, and fewer complete.
      const double share = r.state == State::Ready && capacity > 0
                               ? r.curve->saturation().rate * r.speed / capacity
                               : 0.0;
      r.rate = flow / dt * share;
      const double intake = r.rate + lagging / dt * share;
      const double w = r.latency_s > 0
                           ? r.latency_s
                           : r.curve->mean_latency(r.at, measured_load(r), ready_) / r.speed;
      r.smoothed_rate = full && r.state == State::Ready
                            ? intake
                            : intake + (r.smoothed_rate - intake) * smoothing_decay(w);
      if (const double engine_rate = r.smoothed_rate / r.speed;
          point.curve != r.curve || point.rate != engine_rate) {
        point.curve = r.curve;
        point.rate = engine_rate;
        point.at = r.curve->at_rate(engine_rate);
        point.latency = r.curve->mean_latency(point.at, measured_load(r), ready_);
      }
      r.at = point.at;
      r.latency_s = point.latency / r.speed;
      const double steady = intake * r.latency_s;
      const double before = r.in_flight + filled;
      const double decay = stock_decay(r.latency_s);
      r.in_flight = steady + (before - steady) * decay;
      // The piece's count (Poisson: its variance is itself) enters B with weight g, the share of
      // arrivals spread over the piece still in flight at its end, and decays with B, squared.
      const double g = r.latency_s / dt * (1 - decay);
      r.count_noise = r.count_noise * decay * decay + r.rate * dt * g * g;
      r.done = std::max(0.0, r.rate * dt + before - r.in_flight);
      r.mean_in_flight = (before + r.in_flight) / 2;
      twin = &r;
      twin_inputs = inputs;
    }
    r.served += whole(r.served_carry, r.done);
    if (r.accepted < 1) refused += r.rate * dt * (1 - r.accepted) / r.accepted;
    if (const KvBoundTable& m = r.curve->measured(); !m.empty())
      preemptions_ += r.done * m.preemptions(measured_load(r), ready_);
    peak_running_ = std::max(peak_running_, r.in_flight);
    if (r.at.running > 0)
      // A stock above its point's running sequences waits inside the engine for KV room: the
      // cache is full, not fuller.
      peak_kv_usage_ =
          std::max(peak_kv_usage_, std::min(1.0, r.at.kv_usage * r.in_flight / r.at.running));
    if (r.state != State::Ready) continue;
    held += r.mean_in_flight;
    offered += r.in_flight;
    slots += std::min<double>(config_.concurrency, r.curve->cost().limits().max_num_seqs);
    holding += r.in_flight * r.latency_s;
  }
  // Busy time: the fewest-in-flight router sends a request to an idle replica while there is one,
  // so with N requests in the service (Poisson, M/G/∞) at most min(N, R) of its R Ready replicas
  // are busy, and a few per cent fewer where one idles while another holds two (jsq_busy.hpp); a
  // terminating replica is busy while its own stock lasts.
  const double busy_each = ready_ > 0 ? expected_min_poisson(held, ready_) *
                                            jsq_busy_share(held / ready_, ready_) / ready_
                                      : 0.0;
  const SimDuration ready_busy = from_seconds(dt * busy_each);
  for (Replica& r : replicas_) {
    if (r.state == State::Starting) continue;
    const double share = r.state == State::Ready ? busy_each : 1 - std::exp(-r.mean_in_flight);
    r.busy += r.state == State::Ready ? ready_busy : from_seconds(dt * share);
    if (r.seat != kNoSeat) time_slices_->set_busy_share(r.seat, share);
  }

  // The router's queue while the replicas keep up: the M/G/c queue of their slots (the router's,
  // as the request level's), offered the smoothed admitted rate over the mean holding time
  // (without a backlog; with one, the backlog's wait is the wait: FluidQueue).
  holding = offered > 0 ? holding / offered : 0;
  lag_owed_ = full ? lag_owed_ - lagging : 0.0;
  if (holding > 0) {
    const double rate = admitted / dt;
    offered_rate_ = rate + (offered_rate_ - rate) * std::exp(-dt / (kOfferedSmoothing * holding));
    load_rate_ =
        expected / dt + (load_rate_ - expected / dt) *
                            std::exp(-dt / std::max(kOfferedSmoothing * holding, kLoadSmoothing_s));
  }
  load_share_ = capacity > 0 ? load_rate_ / capacity : 0.0;
  backlog_ = !queue_.empty();
  passing_backlog_ = backlog_ && queue_.size() <= capacity * to_seconds(kFluidStep);
  Waiting waiting{.admissions = true, .measured_in_balance = !backlog_ || passing_backlog_};
  if (!backlog_)
    waiting.slots = slot_wait(offered_rate_ * holding, slots, mix_.output_cv2(), holding);
  queue_in_balance_ = waiting.slots.mean_waiting;
  // The router chooses where a request goes only while a slot is free: a request that waits for
  // one, or behind a backlog, takes the slot that frees.
  const double choice = queue_.empty() ? 1 - waiting.slots.p_wait : 0.0;
  prompt_overlap_ = 1 - choice * (1 - jsq_prompt_overlap(ready_));
  decode_overlap_ = 1 - choice * (1 - jsq_decode_overlap(ready_));

  // What the Ready replicas of one engine completed is reported once, at the first one's
  // operating point (they share the rate in proportion to their capacity, so their points differ
  // only while a new one's batch fills): a piece makes one report per engine, not per replica.
  // Replicas slowed differently by time-slicing report apart.
  report_groups_.clear();
  for (std::uint32_t i = 0; i < replicas_.size(); ++i) {
    const Replica& r = replicas_[i];
    if (r.state != State::Ready) continue;
    const auto group = std::find_if(report_groups_.begin(), report_groups_.end(), [&](auto& g) {
      return g.curve == r.curve && g.speed == r.speed;
    });
    if (group == report_groups_.end()) {
      report_groups_.push_back({.curve = r.curve, .speed = r.speed, .first = i, .done = r.done});
    } else {
      group->done += r.done;
    }
  }
  if (refused > 0) report(refused, to, Waiting{}, nullptr, DropReason::TooLong);
  std::vector<ReplicaId> drained;
  auto group = report_groups_.begin();
  for (std::uint32_t i = 0; i < replicas_.size(); ++i) {
    Replica& r = replicas_[i];
    if (r.state == State::Terminating) {
      report(r.done, to, waiting, &r, DropReason::None);
      if (r.in_flight < kDrained) {
        report(r.in_flight, to, waiting, &r, DropReason::None);
        drained.push_back(r.id);
      }
    } else if (group != report_groups_.end() && group->first == i) {
      report(group->done, to, waiting, &r, DropReason::None);
      ++group;
    }
  }
  std::vector<SimDuration> busy;
  busy.reserve(drained.size());
  for (ReplicaId id : drained) busy.push_back(remove(id));
  for (std::size_t i = 0; i < drained.size(); ++i)
    if (listener_ != nullptr) listener_->on_replica_drained(drained[i], to, busy[i]);
}

// Whole GPUs keep speed 1, so their arithmetic is as it was.
void FluidServing::time_slice_speeds() {
  if (time_slices_ == nullptr) return;
  for (Replica& r : replicas_)
    if (r.seat != kNoSeat) r.speed = time_slices_->expected_speed(r.seat);
}

// ---- Reports ---------------------------------------------------------------------------------

void FluidServing::report(double count, SimTime at, const Waiting& waiting, const Replica* replica,
                          DropReason drop) {
  const std::uint64_t n = whole(report_carry_, count);
  if (n == 0) return;
  if (drop != DropReason::None) {
    dropped_ += n;
  } else {
    served_ += n;
  }
  if (observer_ == nullptr) return;
  const std::uint64_t spread = std::min<std::uint64_t>(n, representatives_);
  // What a served request's replica took, and where its cache binds, its measured engine.
  const RequestMix& lengths = replica != nullptr ? replica->curve->mix() : mix_;
  const KvBoundTable* measured = replica != nullptr && !replica->curve->measured().empty()
                                     ? &replica->curve->measured()
                                     : nullptr;
  const double load = measured != nullptr ? measured_load(*replica) : 0.0;
  for (std::uint64_t k = 0; k < spread; ++k) {
    const std::size_t index = next_sample_++;
    const RequestMix::Lengths& s = lengths.at_quantile(weyl(index, kSqrt3));
    const std::uint64_t count_k = n / spread + (k < n % spread ? 1 : 0);
    RequestOutcome o{.input_tokens = s.prompt, .output_tokens = s.output};
    if (drop != DropReason::None) {
      o.arrival = at - waiting.dropped_after;
      o.start = o.first_token = o.completion = at;
      o.dropped = true;
      o.drop_reason = drop;
    } else {
      const FluidReplica& curve = *replica->curve;
      const double u = weyl(index, kGolden);
      double to_first = 0, for_slot = 0;  // at the replica's speed; the slot's wait in seconds
      if (measured == nullptr) {
        to_first = curve.time_to_first_token(s.prompt, replica->at, u, prompt_overlap_);
        for_slot = waiting.slots.quantile(weyl(index, kPlastic));
      } else if (waiting.measured_in_balance) {
        // The measured engine behind the router: its time from arrival, whose waits for a slot
        // and for KV room come together, the slot's at most its own.
        const double total = measured->time_to_first_token(load, ready_, u);
        const double slot = std::min(total, measured->router_wait(load, ready_, u));
        to_first = total - slot;
        for_slot = slot / replica->speed;
      } else {
        to_first = measured->first_token(load, ready_, u);
      }
      const SimDuration first = from_seconds(to_first / replica->speed);
      const SimDuration rest = from_seconds(
          curve.decode_seconds(s.output, replica->at, weyl(index, kSilver), decode_overlap_) /
          replica->speed);
      const double behind = waiting.admissions && !(measured && waiting.measured_in_balance)
                                ? queue_.wait(weyl(index, kSqrt7))
                                : 0.0;
      const SimDuration wait = from_seconds(behind + for_slot);
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
          .queued = static_cast<std::uint64_t>(std::llround(queue_.size() + queue_in_balance_))};
}

std::uint32_t FluidServing::in_flight(ReplicaId id) const {
  const Replica* r = find(id);
  return r == nullptr ? 0 : static_cast<std::uint32_t>(std::llround(r->in_flight));
}

// The service's requests in flight at this instant, N, and shared as the fewest-in-flight router
// shares them: ⌊N ÷ R⌋ each, one more for the first N mod R of the R Ready replicas. A
// terminating replica holds its own stock's draw. N has the stocks' sum B as mean; its variance
// is what the departures add, B less the count noise B already carries, so that across scrapes
// N varies as M/G/∞'s Poisson count, not half as much again. Behind a backlog every Ready replica
// holds its slots.
ReplicaLoad FluidServing::load(ReplicaId id) const {
  const Replica* r = find(id);
  if (r == nullptr || r->state == State::Starting) return {};
  const auto instant = [&] { return mix64(gauge_seed_ ^ mix64(now_.time_since_epoch().count())); };
  const KvBoundTable& measured = r->curve->measured();
  const double seqs = r->curve->cost().limits().max_num_seqs;
  double count = 0;
  if (r->state == State::Ready && backlog_) {
    // Requests wait in the router's queue only while every Ready replica is full.
    count = std::min<double>(config_.concurrency, seqs);
  } else if (r->state == State::Ready) {
    // A scrape reads every replica at one instant: the service's draw and the replicas' ranks
    // are made once for them, until the instant or any replica changes.
    if (last_draw_.at != now_ || last_draw_.revision != revision_) {
      double held = 0, noise = 0, ready = 0;
      for (const Replica& o : replicas_) {
        if (o.state != State::Ready) continue;
        o.rank = ready;
        ready += 1;
        held += o.in_flight;
        noise += o.count_noise;
      }
      last_draw_ = {.at = now_,
                    .revision = revision_,
                    .ready = ready,
                    .count = count_quantile(held, held - noise, unit(instant()))};
    }
    const double n = last_draw_.count, ready = last_draw_.ready;
    // n and ready are whole, so the remainder is exact without fmod.
    const double each = whole_part(n / ready);
    count = each + (r->rank < n - each * ready ? 1 : 0);
  } else {
    count = count_quantile(r->in_flight, r->in_flight - r->count_noise,
                           unit(mix64(instant() ^ mix64(id))));
  }
  // Where the cache binds, of the requests a replica holds those the measured engine runs with so
  // many, drawn; the rest wait for room inside it.
  const double admitted =
      measured.empty()
          ? count
          : std::round(measured.running(measured_load(*r), ready_,
                                        static_cast<std::uint32_t>(std::min(count, seqs)),
                                        unit(mix64(instant() ^ mix64(~r->id)))));
  const double running = std::min(admitted, seqs);
  const double per_request = r->at.running > 0 ? r->at.kv_usage / r->at.running : 0.0;
  return {.running = static_cast<std::uint32_t>(running),
          .waiting = static_cast<std::uint32_t>(count - running),
          .kv_cache_usage = std::min(1.0, per_request * running)};
}

// The peaks of the replicas' means: a request-level run's peaks of instants are higher.
EngineTotals FluidServing::engine_totals() const {
  return {.preemptions = static_cast<std::uint64_t>(std::llround(preemptions_)),
          .peak_running = static_cast<std::uint32_t>(std::llround(peak_running_)),
          .peak_kv_cache_usage = peak_kv_usage_};
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
  queue_.for_each([&](const FluidQueue::Part& p) {
    const auto n = static_cast<std::uint64_t>(std::llround(p.count));
    if (n > 0) f(p.arrival, std::nullopt, n);
  });
  for (const Replica& r : replicas_) {
    const auto n = static_cast<std::uint64_t>(std::llround(r.in_flight));
    if (n == 0) continue;
    const SimTime arrival = now_ - from_seconds(r.latency_s / 2);
    const SimTime first =
        arrival +
        from_seconds(r.curve->time_to_first_token(static_cast<std::uint32_t>(mix_.prompt()), r.at) /
                     r.speed);
    f(arrival, first <= now_ ? std::optional<SimTime>(first) : std::nullopt, n);
  }
}

}  // namespace fleetsim
