// One replica's serving engine (continuous batching over a paged KV cache), advanced in closed
// form: between two milestones the batch does not change, so the steps it runs are counted from
// the elapsed time instead of being simulated one by one. A milestone is a prefill that ends (a
// first token, unless that step changes nothing else: then it leads the plan of the decodes after
// it), a sequence that ends, the KV cache filling up (a preemption) or a refresh that bounds the
// error of treating a step's growing time as linear. reference_engine.hpp runs the
// same policy one step at a time; tests hold the two within 2 %.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim {

// The next milestone of an idle engine: never.
inline constexpr double kNoMilestone = std::numeric_limits<double>::infinity();

// Told what the engine did, with the time (seconds) it happened.
class EngineListener {
 public:
  virtual void on_first_token(std::uint32_t slot, double at) = 0;
  virtual void on_finished(std::uint32_t slot, double at) = 0;
  // The request can never run here: its prompt and output exceed max_model_len or what the KV
  // cache holds.
  virtual void on_rejected(std::uint32_t slot, double at) = 0;

 protected:
  ~EngineListener() = default;
};

class alignas(64) EngineReplica {
 public:
  // `cost` must outlive the replica. Slots run from 0 to limits().max_num_seqs − 1.
  EngineReplica(const StepCost& cost, EngineListener& listener);

  // A request the router sent at `now`; it waits inside the engine until the KV cache admits it.
  // The caller keeps at most max_num_seqs requests on a replica.
  void add(double now, std::uint32_t slot, std::uint32_t prompt, std::uint32_t output);
  // Runs the engine up to `now`, telling the listener what happened. Call at every milestone.
  // The engine may have run ahead of `now` to the end of the step under way (add()); it reports
  // nothing before its time.
  void advance(double now);
  // Reports the first tokens of a lead step that has ended by `now` (plan_lead), which are no
  // milestone: call after advance, before reading the gauges or dropping the requests.
  void sync(double now);
  // When the next milestone happens (seconds); +inf when the engine is idle.
  double next_milestone() const { return milestone_; }
  // The step boundary the engine has reached (seconds): a request added there joins the next
  // step at once.
  double step_boundary() const { return synced_; }
  // Forgets every request (the replica is gone); returns their slots.
  std::vector<std::uint32_t> clear();

  std::uint32_t running() const { return running_; }
  std::uint32_t waiting() const { return static_cast<std::uint32_t>(waiting_.size()); }
  // Share of the KV cache in use, in [0, 1], at the last milestone and at `now` (its decodes'
  // context grown by the whole steps run since).
  double kv_usage() const;
  double kv_usage_at(double now) const;
  std::uint64_t preemptions() const { return preemptions_; }
  std::uint32_t peak_running() const { return peak_running_; }
  double peak_kv_usage() const { return capacity_ > 0 ? peak_kv_blocks_ / capacity_ : 0.0; }

 private:
  enum class Phase : std::uint8_t { Idle, Waiting, Prefill, Decode };
  struct alignas(64) Seq {  // a cache line each
    Phase phase = Phase::Idle;
    bool first_token_sent = false;
    std::uint32_t generation = 0;  // bumped when preempted: stale heap entries
    std::uint64_t admitted = 0;    // admission order, for choosing whom to preempt
    double prompt = 0;             // tokens to prefill: the prompt, plus what a preemption lost
    double to_generate = 0;        // output tokens still to produce
    double reserved = 0;           // KV blocks held beside the decode context (see kv_used_at)
    double prefill_end = 0;        // Prefill: the prefill counter when its prompt is done
    double decode_start = 0;       // Decode: the step counter when it began decoding
    double context0 = 0;           // Decode: cached tokens when it began decoding
  };
  // A FIFO of slots that never holds more than max_num_seqs (a replica holds no more requests),
  // in one allocation: the deque it replaces cost the serving path a pointer chase per access.
  class SlotQueue {
   public:
    explicit SlotQueue(std::uint32_t capacity);
    bool empty() const { return size_ == 0; }
    std::uint32_t size() const { return size_; }
    std::uint32_t front() const { return ring_[head_]; }
    std::uint32_t operator[](std::uint32_t i) const { return ring_[wrap(head_ + i)]; }
    void push_back(std::uint32_t slot) { ring_[wrap(head_ + size_++)] = slot; }
    void push_front(std::uint32_t slot);
    void pop_front() {
      head_ = wrap(head_ + 1);
      --size_;
    }
    void pop_back() { --size_; }
    void clear() { head_ = size_ = 0; }

   private:
    std::uint32_t wrap(std::uint32_t i) const { return i >= capacity_ ? i - capacity_ : i; }
    std::vector<std::uint32_t> ring_;
    std::uint32_t capacity_;
    std::uint32_t head_ = 0;
    std::uint32_t size_ = 0;
  };
  struct HeapEntry {
    double end;  // the step counter when it finishes
    std::uint32_t slot;
    std::uint32_t generation;
  };

  void run_to(double t, double steps);  // `steps` steps of the plan, ending at t
  void cross_lead();                    // the lead step's end (plan_lead)
  void unfold_lead();                   // back to the plan of the lead step alone
  void settle(double now);              // what happens at a milestone, then the next plan
  void admit_waiting();
  void finish_prefills(double now);
  void finish_decodes(double now);
  void finish(std::uint32_t slot, double now);
  bool preempt_while_full();
  void preempt(std::uint32_t slot);
  void plan();  // the rates until the next milestone, and its time
  void plan_lead();
  void note_peak_kv();
  double steps_in(double seconds) const;  // of the plan after its lead step, if any
  double run_seconds(double steps) const;
  double steps_by(double t) const;    // whole and part steps of the plan run by time t
  double time_after(double k) const;  // when the plan's k-th step ends
  StepWork step_work(double k) const;
  double kv_used_at(double steps) const;
  double kv_bound_at(double steps) const;
  bool over_capacity_at(double steps) const;
  void count_decoder(const Seq& s, double sign);
  double blocks(double tokens) const;
  const HeapEntry* next_decode();  // the first live entry of decoding_, stale ones dropped

  // Ordered for the cache: a serving run visits hundreds of replicas between two visits to one,
  // so what every milestone reads comes first, in a few lines of a line-aligned object.
  // The clocks: decode steps and prefill tokens done, as of synced_.
  double milestone_ = 0;
  double synced_ = 0;
  double steps_ = 0;
  double prefilled_ = 0;
  double prefill_queued_ = 0;  // the prefill counter when every admitted prompt is done
  double decoders_ = 0;
  double context_base_ = 0;  // Σ (context0 − decode_start): context = base + decoders × steps
  double fixed_kv_ = 0;      // Σ reserved
  // The plan from synced_ (a step boundary) to the next milestone: plan_steps_ whole steps, each
  // with plan_prefill_ prompt tokens and, if plan_decodes_, a token of every decoding sequence;
  // the k-th takes plan_s0_ + plan_slope_ × k seconds.
  double plan_prefill_ = 0;
  double plan_s0_ = 0;
  double plan_slope_ = 0;
  double plan_steps_ = 0;
  double decoder_blocks_base_ = 0;  // Σ over decoders of q (kv_used_at)
  // A lead step (plan_lead): the plan's first step finishes every admitted prompt; it takes
  // lead_prefill_ prompt tokens (and a token of every decoding sequence, if lead_decodes_) and
  // ends at lead_end_. The plan_* fields then describe the decode steps after it.
  double lead_prefill_ = 0;
  double lead_seconds_ = 0;
  double lead_end_ = 0;
  bool plan_decodes_ = false;
  bool lead_ = false;
  bool lead_decodes_ = false;
  bool chunked_ = true;
  bool mixed_ = true;  // EngineLimits::mixed_steps
  bool reserve_output_ = false;
  std::uint32_t running_ = 0;        // prefilling + decoding
  std::uint32_t stale_decodes_ = 0;  // entries of decoding_ whose sequence was preempted
  std::uint32_t max_seqs_ = 0;
  double block_ = 16;
  double inv_block_ = 1.0 / 16;
  double capacity_ = 0;  // KV blocks
  double budget_ = 0;    // tokens per step
  int block_shift_ = 4;  // log2 of block_
  std::uint32_t peak_running_ = 0;
  double peak_kv_blocks_ = 0;
  std::uint64_t admissions_ = 0;
  std::uint64_t preemptions_ = 0;

  std::vector<Seq> seqs_;            // by slot
  std::vector<HeapEntry> decoding_;  // min-heap by end
  SlotQueue waiting_;                // FIFO; a preempted request goes back to the front
  SlotQueue prefilling_;             // admission order, so prefill_end ascends
  const StepCost& cost_;
  EngineListener& listener_;
  // Decoders by phase (kv_used_at), held inside the replica: touched at every decode's start
  // and end, a separate allocation cost a cache miss there.
  static constexpr std::uint32_t kMaxBlockTokens = 32;
  std::array<std::int32_t, kMaxBlockTokens> phase_count_{};
};

}  // namespace fleetsim
