// A service served as rates rather than requests: the fluid mode (`serving_mode: fluid`).
//
// Time advances in pieces of at most kCalmStep (kFluidStep while requests wait) that end at the
// scrapes (FluidPacing), and at every change of its replicas. In each piece the arrivals the
// traffic source yields are counted, not simulated (a Poisson source draws the count at once:
// TrafficSource::count_until); they join the router's queue, a fluid first come first served
// (FluidQueue: each request waits its own wait), and its Ready replicas take from its head at most
// their saturation rates (FluidReplica), shared in proportion to them (the fewest-in-flight router
// keeps equal replicas equally loaded). What waits longer than queue_timeout, or beyond max_queue,
// is dropped. Each replica holds its requests in flight as a stock with the mean latency of its
// operating point as time constant: dB/dt = λ − B ÷ W, integrated exactly over a piece. That is the
// pointwise-stationary approximation while capacity exceeds load and a fluid queue while it does
// not (Whitt, "Stochastic-Process Limits", Springer 2002, ch. 5; Green, Kolesar & Svoronos 1991).
// What completes is reported to the observer as the service's representative requests (RequestMix)
// with counts, at the latencies of the replica's operating point plus the wait in the queue; counts
// are whole, their fractions carried to the next piece. A replica on a time-sliced GPU
// (ReplicaSpec::time_slice) runs at its expected speed while it has work, from the busy shares of
// the GPU's replicas in the last piece: its capacity is that share of its curve's, and its
// operating point and latencies are the curve's at the rate its engine sees (the rate ÷ the speed),
// stretched by 1 ÷ the speed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/serving/fluid_queue.hpp"
#include "fleetsim/serving/fluid_replica.hpp"
#include "fleetsim/serving/serving_backend.hpp"
#include "fleetsim/serving/serving_settings.hpp"
#include "fleetsim/serving/slot_wait.hpp"
#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// The longest piece while requests wait in the router's queue: short against a queue_timeout,
// which drops what waited that long by a piece's middle.
inline constexpr SimDuration kFluidStep = seconds(5);
// The longest piece while none wait: short against how fast traffic changes, as a piece's
// arrivals are spread evenly over it (its stocks are integrated exactly). Against 5 s pieces
// throughout, the bundled scenarios' cost, misses and quantiles move within their spread over ten
// seeds, and the month takes a fifth fewer instructions.
inline constexpr SimDuration kCalmStep = seconds(15);

// When a service's pieces end, and the report interval its representatives serve. Pieces divide
// the scrape interval into equal parts of at most kCalmStep, or kFluidStep while requests wait,
// from the scrapes' phase: a scrape then reads the state at a piece's end instead of splitting one.
struct FluidPacing {
  SimTime anchor{};  // a scrape: pieces end here and at every part of the interval from it
  SimDuration scrape_interval = seconds(15);
  SimDuration report_interval = minutes(5);
};

class FluidServing final : public ServingBackend, public EventHandler, private TimeSliceClient {
 public:
  // `sim` must outlive it; the mix is the service's request lengths; `rng` draws the gauges.
  // Every replica must be given an engine (ReplicaSpec::engine): the fluid mode runs on the
  // engine model only.
  FluidServing(Simulation& sim, const ServingConfig& config, RequestMix mix, RngStream rng,
               FluidPacing pacing = {});
  ~FluidServing() override;
  FluidServing(const FluidServing&) = delete;
  FluidServing& operator=(const FluidServing&) = delete;

  // Counts the arrivals of `source` from now on. `source` must outlive it. Call at most once.
  void attach(TrafficSource& source);

  void set_observer(ServingObserver* observer) override { observer_ = observer; }
  void set_replica_listener(ReplicaListener* listener) override { listener_ = listener; }
  void add_replica(const ReplicaSpec& spec, std::optional<SimTime> ready_at) override;
  void set_ready(ReplicaId id) override;
  void begin_termination(ReplicaId id) override;
  void kill_replica(ReplicaId id) override;
  bool has_replica(ReplicaId id) const override { return find(id) != nullptr; }
  void catch_up() override { advance_to(sim_.now()); }

  ServingCounters counters() const override;
  std::uint32_t in_flight(ReplicaId id) const override;
  // vLLM's gauges as a scrape sees them: the requests in flight at one instant, drawn around the
  // stocks (varying as M/G/∞'s across scrapes) and shared as the router shares them, the engine's
  // max_num_seqs at most (the rest wait inside it); the KV cache in proportion. The same replica
  // and instant always draw the same.
  ReplicaLoad load(ReplicaId id) const override;
  EngineTotals engine_totals() const override;
  std::uint64_t served_by(ReplicaId id) const override;
  SimDuration busy_time(ReplicaId id) const override;
  SimDuration total_busy_time() const override;
  void for_each_unfinished(const UnfinishedVisitor& f) const override;

  void on_event(SimTime now, std::uint64_t tag) override;

 private:
  enum class State : std::uint8_t { Starting, Ready, Terminating };
  struct Replica {
    ReplicaId id = kNoReplica;
    State state = State::Starting;
    const FluidReplica* curve = nullptr;
    double accepted = 1;        // its curve's
    OperatingPoint at;          // its operating point in the last piece
    double rate = 0;            // its share of the admitted rate it takes, requests per second
    double smoothed_rate = 0;   // that rate over its latency: what sets its batch
    double done = 0;            // requests it completed in the last piece
    double mean_in_flight = 0;  // over the last piece
    double latency_s = 0;       // W at that point
    double in_flight = 0;       // B, requests
    double count_noise = 0;     // the variance B carries from the arrival counts (load)
    double served_carry = 0;    // completions not yet whole
    std::uint64_t served = 0;
    SimDuration busy{};
    TimeSlicedGpus::Handle seat = kNoSeat;  // on a time-sliced GPU
    double speed = 1;                       // while it has work, in this piece
    mutable double rank = 0;                // among the Ready, as of last_draw_
  };
  static constexpr TimeSlicedGpus::Handle kNoSeat = ~TimeSlicedGpus::Handle{0};
  // How long the requests a report names waited in the router's queue: a drop's whole wait, or
  // for what a piece completes, the waits of its admissions from the queue (FluidQueue::wait)
  // and, without a backlog, the slots' wait in balance (a measured engine's own, KvBoundTable).
  struct Waiting {
    SimDuration dropped_after{};
    bool admissions = false;
    // A measured engine's table holds the router's waits of Poisson arrivals at a rate: a backlog
    // the replicas clear within a piece is one of them, not a wait to add.
    bool measured_in_balance = false;
    SlotWait slots;
  };

  void advance_to(SimTime t);
  SimTime next_piece_end(SimTime after) const;
  void run_piece(SimTime from, SimTime to);
  std::uint64_t count_arrivals(SimTime before);
  // Reports `count` requests as the mix's representatives, at the next evenly spread quantiles of
  // its output lengths.
  void report(double count, SimTime at, const Waiting& waiting, const Replica* replica,
              DropReason drop);
  // One per engine (catalog type) its replicas ran on: its steady state on the requests it takes.
  struct Curve {
    const StepCost* cost = nullptr;
    std::unique_ptr<RequestMix> taken;  // the service's mix less what it refuses; null: none
    std::unique_ptr<FluidReplica> replica;
    double accepted = 1;  // share of the service's requests it takes (the rest are too long)
  };
  const Curve& curve_for(const StepCost& cost);
  Replica* find(ReplicaId id);
  const Replica* find(ReplicaId id) const;
  std::uint32_t position(ReplicaId id) const;  // in replicas_, or replicas_.size()
  SimDuration remove(ReplicaId id);            // its busy time over its life
  void schedule_tick(SimTime at);
  // Time-sliced replicas: their speeds for the piece about to run, from the shares of the last.
  void time_slice_speeds();
  // The requests per second its engine is looked up at in its measured table (KvBoundTable):
  // full behind a backlog the Ready replicas do not clear within a piece.
  double measured_load(const Replica& r) const {
    return backlog_ && !passing_backlog_ ? r.curve->measured().overloaded_rate()
                                         : load_share_ * r.curve->saturation().rate;
  }
  // Its speed is read each piece (time_slice_speeds): nothing to do when it changes.
  void on_speed(std::uint32_t, double, SimTime) override {}

  Simulation& sim_;
  ServingConfig config_;
  RequestMix mix_;
  FluidPacing pacing_;
  std::int64_t parts_ = 1;       // pieces per scrape interval while requests wait
  std::int64_t calm_parts_ = 1;  // and while none do
  std::size_t representatives_;  // the most a report spreads its count over, for this piece
  ServingObserver* observer_ = nullptr;
  ReplicaListener* listener_ = nullptr;
  TrafficSource* source_ = nullptr;
  TimeSlicedGpus* time_slices_ = nullptr;  // of the replicas' seats, if any
  bool drawn_counts_ = false;              // the source draws its counts (count_until); else:
  std::optional<Request> next_;            // the source's first request not yet counted

  std::vector<Curve> curves_;      // in first-use order
  std::vector<Replica> replicas_;  // live replicas, in the order they were added
  // (id, position in replicas_), by id: a scrape looks every pod's replica up.
  std::vector<std::pair<ReplicaId, std::uint32_t>> by_id_;
  mutable std::uint32_t last_found_ = 0;  // position()'s last answer
  FluidQueue queue_;
  std::vector<FluidQueue::Part> leaving_;  // what a piece drops from the queue (its memory kept)
  struct ReportGroup {                     // Ready replicas of one engine and speed (run_piece)
    const FluidReplica* curve = nullptr;
    double speed = 1;
    std::uint32_t first = 0;  // its first replica's position
    double done = 0;          // what they completed in the piece
  };
  std::vector<ReportGroup> report_groups_;  // kept for its memory
  SimTime now_{};                           // integrated up to here

  std::uint64_t arrived_ = 0;
  std::uint64_t served_ = 0;
  std::uint64_t dropped_ = 0;
  double report_carry_ = 0;      // reported counts not yet whole
  std::size_t next_sample_ = 0;  // representatives reported so far: the next one's index
  SimDuration busy_gone_{};      // busy time of replicas that are gone
  double queue_in_balance_ = 0;  // the slots' mean queue in the last piece
  // The router's spreading of prompts in the last piece (jsq_prompt_overlap, jsq_decode_overlap),
  // where it had a free slot to choose.
  double prompt_overlap_ = 1;
  double decode_overlap_ = 1;
  double offered_rate_ = 0;  // the admitted rate, smoothed (kOfferedSmoothing)
  double load_rate_ = 0;  // the arrival rate (the source's where known), over two minutes at least
  // Behind a backlog, what the lag of batches that started together still withholds from the
  // replicas' intake.
  double lag_owed_ = 0;
  double peak_running_ = 0;
  double peak_kv_usage_ = 0;
  // The measured engines (KvBoundTable): what they preempted, as a mean; the Ready replicas the
  // router chose among in the last piece; the arrival rate (load_rate_) as a share of their
  // capacity, at which each is looked up.
  double preemptions_ = 0;
  double ready_ = 0;
  double load_share_ = 0;
  bool backlog_ = false;
  bool passing_backlog_ = false;  // one the Ready replicas serve within kFluidStep
  std::uint64_t gauge_seed_ = 0;  // the gauges' draws: a hash of it, the replica and the time
  // Bumped whenever a replica may change (a piece, a non-const find, an addition or removal).
  std::uint64_t revision_ = 0;
  // The Ready replicas' last draw (load), at one instant and revision.
  struct Draw {
    SimTime at{};
    std::uint64_t revision = ~std::uint64_t{0};  // none yet
    double ready = 0;                            // Ready replicas
    double count = 0;                            // the requests in flight they hold
  };
  mutable Draw last_draw_;
};

}  // namespace fleetsim
