#include "fleetsim/serving/engine_replica.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// A plan never runs more steps than this before it is recomputed: a step's time grows with the
// context its decodes read, and the plan treats that growth as linear in the step count, which it
// is only while the roofline's bound does not switch.
constexpr double kRefreshSteps = 256;

// Counters grow without bound over a long run; a milestone counts as reached within a relative
// rounding error.
bool reached(double target, double counter) {
  return target <= counter + 1e-7 + 1e-9 * std::abs(counter);
}

// The heap's order, as a type the standard algorithms inline.
struct EndsLater {
  bool operator()(const auto& a, const auto& b) const { return a.end > b.end; }
};

// floor and ceil without a library call (|x| < 2^63; the step and token counts are far below).
double floor_of(double x) {
  const auto t = static_cast<double>(static_cast<std::int64_t>(x));
  return t > x ? t - 1 : t;
}
double ceil_of(double x) {
  const auto t = static_cast<double>(static_cast<std::int64_t>(x));
  return t < x ? t + 1 : t;
}

}  // namespace

EngineReplica::SlotQueue::SlotQueue(std::uint32_t capacity)
    : ring_(std::max(capacity, 1U)), capacity_(std::max(capacity, 1U)) {}

void EngineReplica::SlotQueue::push_front(std::uint32_t slot) {
  head_ = head_ == 0 ? capacity_ - 1 : head_ - 1;
  ring_[head_] = slot;
  ++size_;
}

EngineReplica::EngineReplica(const StepCost& cost, EngineListener& listener)
    : milestone_(kNoMilestone),
      chunked_(cost.limits().chunked_prefill),
      mixed_(cost.limits().mixed_steps),
      reserve_output_(cost.limits().reserve_output),
      max_seqs_(cost.limits().max_num_seqs),
      block_(cost.limits().block_tokens),
      inv_block_(1.0 / cost.limits().block_tokens),
      capacity_(std::floor(static_cast<double>(cost.kv_capacity_tokens()) / block_)),
      budget_(cost.limits().max_num_batched_tokens),
      block_shift_(std::countr_zero(cost.limits().block_tokens)),
      seqs_(cost.limits().max_num_seqs),
      waiting_(cost.limits().max_num_seqs),
      prefilling_(cost.limits().max_num_seqs),
      cost_(cost),
      listener_(listener) {
  // The engines' own block sizes (1, 16, 32): powers of two that phase_count_ holds.
  FLEETSIM_ASSERT(std::has_single_bit(cost.limits().block_tokens) &&
                  cost.limits().block_tokens <= kMaxBlockTokens);
}

// The small helpers a plan reads (blocks, KV use, the next decode's end, a step's work and time)
// are always_inline: GCC kept them as calls from the large functions that read them, and those
// calls cost 3 % of a served request's instructions.
[[gnu::always_inline]] inline double EngineReplica::blocks(double tokens) const {
  return ceil_of(tokens * inv_block_);
}

// Blocks in use when the decode clock reads `steps`. Prefilling sequences hold blocks for their
// prompt and first token; a decoding one ⌈context ÷ B⌉, its context growing a token a step. With
// context = base + steps, base = q B + phase and steps = Q B + r, that is q + Q + ⌈(phase + r) ÷
// B⌉, and the last term is 0 (phase + r = 0), 2 (phase + r > B) or 1. Decoders are counted per
// phase: a decoder that starts or ends costs one addition, the total at most B. Under
// reserve_output every running sequence holds blocks for its whole length from admission.
[[gnu::always_inline]] inline double EngineReplica::kv_used_at(double steps) const {
  if (reserve_output_) return fixed_kv_;
  if (decoders_ < 0.5) return fixed_kv_;
  const double whole = floor_of(steps * inv_block_);
  const auto r = static_cast<std::size_t>(steps - whole * block_);
  const auto b = static_cast<std::size_t>(block_);
  std::int64_t correction = r == 0 ? -phase_count_[0] : 0;
  for (std::size_t k = b + 1 - r; k < b; ++k) correction += phase_count_[k];
  return fixed_kv_ + decoder_blocks_base_ + decoders_ * (whole + 1) +
         static_cast<double>(correction);
}

// At most kv_used_at(steps), in a multiply-add: each decoder wastes less than a block.
[[gnu::always_inline]] inline double EngineReplica::kv_bound_at(double steps) const {
  if (reserve_output_) return fixed_kv_;
  return fixed_kv_ + (context_base_ + decoders_ * steps) * inv_block_ + decoders_;
}

[[gnu::always_inline]] inline bool EngineReplica::over_capacity_at(double steps) const {
  return kv_bound_at(steps) > capacity_ && kv_used_at(steps) > capacity_;
}

// The counts are whole numbers held in doubles, so the floor division by B is done on integers,
// with a shift (B is a power of two): the rounding fix-ups it replaces were a chain of
// conversions and branches on every decode's start and end.
[[gnu::always_inline]] inline void EngineReplica::count_decoder(const Seq& s, double sign) {
  const double base = s.context0 - s.decode_start;
  const auto whole = static_cast<std::int64_t>(base);
  const std::int64_t q = whole >> block_shift_;  // floors a negative base too
  const auto phase = static_cast<std::size_t>(whole & (static_cast<std::int64_t>(block_) - 1));
  phase_count_[phase] += static_cast<std::int32_t>(sign);
  decoder_blocks_base_ += sign * static_cast<double>(q);
  decoders_ += sign;
  context_base_ += sign * base;
}

double EngineReplica::kv_usage() const {
  return capacity_ > 0 ? std::clamp(kv_used_at(steps_) / capacity_, 0.0, 1.0) : 0.0;
}

double EngineReplica::kv_usage_at(double now) const {
  if (capacity_ <= 0) return 0.0;
  // Within a lead step (sync() has crossed a lead that ended), the cache is as at its start.
  const double steps = plan_decodes_ && !lead_ && now > synced_
                           ? steps_ + floor_of(steps_in(now - synced_))
                           : steps_;
  return std::clamp(kv_used_at(steps) / capacity_, 0.0, 1.0);
}

// ---- Requests --------------------------------------------------------------------------------

void EngineReplica::add(double now, std::uint32_t slot, std::uint32_t prompt,
                        std::uint32_t output) {
  advance(now);
  Seq& s = seqs_[slot];
  s = Seq{.phase = Phase::Waiting,
          .generation = s.generation + 1,
          .prompt = static_cast<double>(prompt),
          .to_generate = std::max(1.0, static_cast<double>(output))};
  if (!cost_.accepts(prompt, output)) {
    s.phase = Phase::Idle;
    listener_.on_rejected(slot, now);
    return;
  }
  waiting_.push_back(slot);
  // An idle engine starts a step at once, and so does one at a step boundary.
  if (running_ == 0 || now <= synced_) {
    synced_ = std::max(synced_, now);
    admit_waiting();
    plan();
    return;
  }
  // A busy engine admits it at the end of the step under way. When that step ends a plan, its
  // milestone does; otherwise nothing else happens then, so the engine runs ahead to it now and
  // plans from there, and the arrival costs no event of its own.
  // One that arrives during a lead step waits for its end, which is a milestone again.
  if (lead_ && now < lead_end_) {
    unfold_lead();
    return;
  }
  const double done = floor_of(steps_by(now));
  if (done + 1 < plan_steps_) {
    run_to(time_after(done + 1), done + 1);
    admit_waiting();
    plan();
  }
}

// vLLM V1 schedules the running sequences first and admits a waiting one only while the step
// has tokens left for it (with chunked prefill; without, V0's prompt steps are modelled).
// Decodes take a share of the step only where they share it with prompts. The running
// sequences' blocks for the token the step writes are theirs first (the scheduler allocates
// their slots before it admits): a waiting one takes only what the step leaves.
void EngineReplica::admit_waiting() {
  double budget = budget_ - (mixed_ ? decoders_ : 0) - (prefill_queued_ - prefilled_);
  while (!waiting_.empty() && running_ < max_seqs_ && (!chunked_ || budget > 0)) {
    const std::uint32_t slot = waiting_.front();
    Seq& s = seqs_[slot];
    const double need = reserve_output_ ? blocks(s.prompt + s.to_generate) : blocks(s.prompt + 1);
    if (kv_bound_at(steps_ + 1) + need > capacity_ && kv_used_at(steps_ + 1) + need > capacity_)
      return;  // first come, first served: the rest wait too
    waiting_.pop_front();
    s.phase = Phase::Prefill;
    s.admitted = ++admissions_;
    s.reserved = need;
    fixed_kv_ += need;
    prefill_queued_ += s.prompt;
    budget -= s.prompt;
    s.prefill_end = prefill_queued_;
    prefilling_.push_back(slot);
    ++running_;
  }
}

// The step that computes a prompt's last token also samples the next output token.
void EngineReplica::finish_prefills(double now) {
  while (!prefilling_.empty() && reached(seqs_[prefilling_.front()].prefill_end, prefilled_)) {
    const std::uint32_t slot = prefilling_.front();
    prefilling_.pop_front();
    Seq& s = seqs_[slot];
    if (!s.first_token_sent) {
      s.first_token_sent = true;
      listener_.on_first_token(slot, now);
    }
    s.to_generate -= 1;
    if (s.to_generate < 0.5) {
      finish(slot, now);
      continue;
    }
    if (!reserve_output_) {
      fixed_kv_ -= s.reserved;
      s.reserved = 0;
    }
    s.phase = Phase::Decode;
    s.decode_start = steps_;
    s.context0 = s.prompt + 1;
    count_decoder(s, +1);
    decoding_.push_back({steps_ + s.to_generate, slot, s.generation});
    std::push_heap(decoding_.begin(), decoding_.end(), EndsLater{});
  }
  // Rebase the prefill counters whenever they agree, so they never grow past double precision.
  if (prefilling_.empty()) prefilled_ = prefill_queued_ = 0;
}

[[gnu::always_inline]] inline const EngineReplica::HeapEntry* EngineReplica::next_decode() {
  while (!decoding_.empty()) {
    const HeapEntry& top = decoding_.front();
    if (stale_decodes_ == 0) return &top;  // no preemption left one: spare the look-up
    const Seq& s = seqs_[top.slot];
    if (s.generation == top.generation && s.phase == Phase::Decode) return &top;
    std::pop_heap(decoding_.begin(), decoding_.end(), EndsLater{});
    decoding_.pop_back();
    --stale_decodes_;
  }
  return nullptr;
}

void EngineReplica::finish_decodes(double now) {
  while (const HeapEntry* top = next_decode()) {
    if (!reached(top->end, steps_)) break;
    const std::uint32_t slot = top->slot;
    std::pop_heap(decoding_.begin(), decoding_.end(), EndsLater{});
    decoding_.pop_back();
    finish(slot, now);
  }
  if (decoders_ < 0.5) {
    decoding_.clear();
    stale_decodes_ = 0;
    steps_ = context_base_ = decoders_ = decoder_blocks_base_ = 0;
  }
}

void EngineReplica::finish(std::uint32_t slot, double now) {
  Seq& s = seqs_[slot];
  if (s.phase == Phase::Decode) count_decoder(s, -1);
  fixed_kv_ -= s.reserved;
  s.reserved = 0;
  s.phase = Phase::Idle;
  --running_;
  listener_.on_finished(slot, now);
}

// vLLM's recompute preemption: the newest running sequence gives back its blocks and goes to the
// front of the queue; when it is admitted again it prefills its prompt and the tokens it had
// produced, and goes on from there.
// Before a step, every decoding sequence needs room for the token it writes; vLLM preempts the
// newest running sequence until they all have it.
bool EngineReplica::preempt_while_full() {
  if (reserve_output_) return false;
  bool any = false;
  while (running_ > 1 && over_capacity_at(steps_ + 1)) {
    std::uint32_t newest = 0;
    std::uint64_t newest_admitted = 0;
    for (std::uint32_t i = 0; i < seqs_.size(); ++i) {
      const Seq& s = seqs_[i];
      if ((s.phase == Phase::Prefill || s.phase == Phase::Decode) && s.admitted > newest_admitted) {
        newest = i;
        newest_admitted = s.admitted;
      }
    }
    preempt(newest);
    any = true;
  }
  return any;
}

void EngineReplica::preempt(std::uint32_t slot) {
  Seq& s = seqs_[slot];
  ++preemptions_;
  --running_;
  ++s.generation;
  if (s.phase == Phase::Decode) {
    const double produced = steps_ - s.decode_start;
    count_decoder(s, -1);
    ++stale_decodes_;  // its entry stays in decoding_ until it comes to the top
    s.prompt = s.context0 + produced;
    s.to_generate = std::max(1.0, s.to_generate - produced);
  } else {
    // The newest prefilling sequence is the last admitted: the back of the FIFO. Its computed
    // tokens are discarded.
    prefilling_.pop_back();
    prefill_queued_ = s.prefill_end - s.prompt;
    prefilled_ = std::min(prefilled_, prefill_queued_);
  }
  fixed_kv_ -= s.reserved;
  s.reserved = 0;
  s.phase = Phase::Waiting;
  waiting_.push_front(slot);
}

std::vector<std::uint32_t> EngineReplica::clear() {
  std::vector<std::uint32_t> held;
  for (std::uint32_t i = 0; i < seqs_.size(); ++i) {
    Seq& s = seqs_[i];
    if (s.phase != Phase::Idle) held.push_back(i);
    s.phase = Phase::Idle;
    ++s.generation;
  }
  waiting_.clear();
  prefilling_.clear();
  decoding_.clear();
  stale_decodes_ = 0;
  running_ = 0;
  steps_ = prefilled_ = prefill_queued_ = decoders_ = context_base_ = fixed_kv_ = 0;
  decoder_blocks_base_ = 0;
  std::fill(phase_count_.begin(), phase_count_.end(), 0);
  plan();
  return held;
}

// The work of the plan's k-th step.
[[gnu::always_inline]] inline StepWork EngineReplica::step_work(double k) const {
  StepWork work;
  if (plan_decodes_) {
    work.decodes = decoders_;
    work.decode_context = context_base_ + decoders_ * (steps_ + k);
  }
  if (plan_prefill_ == 0) return work;
  // The chunk: plan_prefill_ tokens, k chunks into the queue of prompts, in admission order.
  work.prefill_tokens = plan_prefill_;
  double skip = k * plan_prefill_, take = plan_prefill_;
  for (std::uint32_t i = 0; i < prefilling_.size() && take > 0; ++i) {
    const Seq& s = seqs_[prefilling_[i]];
    double done = i == 0 ? prefilled_ - (s.prefill_end - s.prompt) : 0;
    const double skipped = std::min(skip, s.prompt - done);
    done += skipped;
    skip -= skipped;
    const double c = std::min(take, s.prompt - done);
    work.prefill_context += c * (done + c / 2);
    take -= c;
  }
  return work;
}

// ---- The clock -------------------------------------------------------------------------------

void EngineReplica::run_to(double t, double steps) {
  if (lead_) {
    cross_lead();
    steps -= 1;
  }
  if (plan_decodes_) steps_ += steps;
  prefilled_ += plan_prefill_ * steps;
  synced_ = t;
}

// The plan of the lead step alone, as plan() made it before plan_lead.
void EngineReplica::unfold_lead() {
  lead_ = false;
  plan_prefill_ = lead_prefill_;
  plan_decodes_ = lead_decodes_;
  plan_s0_ = lead_seconds_;
  plan_slope_ = 0;
  plan_steps_ = 1;
  milestone_ = lead_end_;
}

// What settle does at the end of a lead step, which plan_lead has found changes nothing else: no
// sequence ends, none is preempted, none waits. The plan goes on with its decode steps.
void EngineReplica::cross_lead() {
  lead_ = false;
  if (lead_decodes_) steps_ += 1;
  prefilled_ += lead_prefill_;
  synced_ = lead_end_;
  plan_steps_ -= 1;
  note_peak_kv();
  finish_prefills(lead_end_);
}

// A plan's last step is its fullest.
[[gnu::always_inline]] inline void EngineReplica::note_peak_kv() {
  if (kv_bound_at(steps_) > peak_kv_blocks_)
    peak_kv_blocks_ = std::max(peak_kv_blocks_, kv_used_at(steps_));
}

void EngineReplica::settle(double now) {
  note_peak_kv();
  // Most milestones are a decode's end: no prompt to finish, nor counters to rebase.
  if (!prefilling_.empty() || prefilled_ != 0 || prefill_queued_ != 0) finish_prefills(now);
  finish_decodes(now);
  // vLLM admits no waiting request in a step that preempted one; it tries again the next step.
  const bool preempted =
      !reserve_output_ && running_ > 1 && over_capacity_at(steps_ + 1) && preempt_while_full();
  if (!preempted) admit_waiting();
  plan();
  if (preempted && !waiting_.empty() && plan_steps_ > 1) {
    plan_steps_ = 1;
    milestone_ = synced_ + run_seconds(1);
  }
}

void EngineReplica::advance(double now) {
  while (milestone_ <= now) {
    run_to(milestone_, plan_steps_);
    settle(synced_);
  }
}

void EngineReplica::sync(double now) {
  if (lead_ && lead_end_ <= now) cross_lead();
}

// The plan's k-th step takes s0 + slope × k: k steps take k s0 + slope k (k − 1) / 2.
[[gnu::always_inline]] inline double EngineReplica::run_seconds(double k) const {
  return k * plan_s0_ + plan_slope_ * k * (k - 1) / 2;
}

// The steps done in `seconds` of the plan, a real number: the root of run_seconds(k) = seconds.
[[gnu::always_inline]] inline double EngineReplica::steps_in(double seconds) const {
  const double b = plan_s0_ - plan_slope_ / 2;
  const double k = plan_slope_ <= 0
                       ? seconds / plan_s0_
                       : 2 * seconds / (b + std::sqrt(b * b + 2 * plan_slope_ * seconds));
  return std::clamp(k, 0.0, plan_steps_ - (lead_ ? 1 : 0));
}

[[gnu::always_inline]] inline double EngineReplica::steps_by(double t) const {
  if (!lead_) return steps_in(t - synced_);
  return t < lead_end_ ? 0 : 1 + steps_in(t - lead_end_);
}

[[gnu::always_inline]] inline double EngineReplica::time_after(double k) const {
  if (!lead_) return synced_ + run_seconds(k);
  return k < 1 ? synced_ : lead_end_ + run_seconds(k - 1);
}

// Steps run whole: the plan ends at the first step boundary where something changes.
void EngineReplica::plan() {
  lead_ = false;
  plan_steps_ = 0;
  milestone_ = kNoMilestone;
  peak_running_ = std::max(peak_running_, running_);
  if (running_ == 0) return;
  const double queued = std::max(0.0, prefill_queued_ - prefilled_);
  const double d = decoders_;
  // Decodes first, then prompt chunks in the token budget that is left; in steps that are not
  // mixed, a step is either prompts only or decodes only, prompts first.
  const double room = mixed_ ? std::max(0.0, budget_ - d) : budget_;
  plan_prefill_ = std::min(queued, room);
  plan_decodes_ = d > 0 && (mixed_ || plan_prefill_ == 0);
  if (plan_prefill_ == 0 && !plan_decodes_) return;

  double k = kRefreshSteps;
  if (plan_prefill_ > 0) {
    // Full chunks until the head's prompt is done, or until what is queued no longer fills one.
    const Seq& head = seqs_[prefilling_.front()];
    const double head_steps = ceil_of((head.prefill_end - prefilled_) / plan_prefill_ - 1e-9);
    k = std::min(
        k, head_steps * plan_prefill_ <= queued ? head_steps : floor_of(queued / plan_prefill_));
  }
  // A plan of one step (most prompts take one) needs no bound from the decodes.
  if (plan_decodes_ && k > 1) {
    if (const HeapEntry* top = next_decode()) k = std::min(k, top->end - steps_);
    // Until the step whose new tokens would not fit: the first k with kv_used_at(steps_ + k + 1)
    // over capacity (nondecreasing in k), found by bisection.
    if (!reserve_output_ && running_ > 1 && over_capacity_at(steps_ + k + 1)) {
      double fits = 0, over = k;
      while (over - fits > 1) {
        const double mid = floor_of((fits + over) / 2);
        (kv_used_at(steps_ + mid + 1) > capacity_ ? over : fits) = mid;
      }
      k = over;
    }
  }
  k = std::max(k, 1.0);

  // The step time grows through the plan (the decodes' context, the chunk's position in a long
  // prompt); it is taken as linear between its first and last step.
  plan_s0_ = cost_.seconds(step_work(0));
  plan_slope_ = k > 1 ? std::max(0.0, (cost_.seconds(step_work(k - 1)) - plan_s0_) / (k - 1)) : 0;
  plan_steps_ = k;
  milestone_ = synced_ + run_seconds(k);
  if (k == 1 && plan_prefill_ > 0) plan_lead();
}

// A step that finishes every admitted prompt is followed by decode steps of the batch it leaves;
// when nothing else happens at its end, those are planned with it, so that a request's first
// token costs no milestone of its own. The decode plan is the one settle would make at the
// step's end, computed here from the sequences the prompts become, in the same order and
// arithmetic (finish_prefills, count_decoder, plan). Where a sequence ends there, a request
// waits, or the KV cache's bound does not rule a preemption out, the step stays a milestone.
void EngineReplica::plan_lead() {
  if (!waiting_.empty() || plan_prefill_ != prefill_queued_ - prefilled_) return;
  const double steps = steps_ + (plan_decodes_ ? 1 : 0);
  double first_end = kNoMilestone;
  if (const HeapEntry* top = next_decode()) {
    if (plan_decodes_ && reached(top->end, steps)) return;
    first_end = top->end;
  }
  double decoders = decoders_, context_base = context_base_, fixed_kv = fixed_kv_;
  for (std::uint32_t i = 0; i < prefilling_.size(); ++i) {
    const Seq& s = seqs_[prefilling_[i]];
    const double to_generate = s.to_generate - 1;
    if (to_generate < 0.5) return;
    if (!reserve_output_) fixed_kv -= s.reserved;
    decoders += 1;
    context_base += (s.prompt + 1) - steps;
    first_end = std::min(first_end, steps + to_generate);
  }
  const double k = std::max(1.0, std::min(kRefreshSteps, first_end - steps));
  if (!reserve_output_ && running_ > 1 &&
      fixed_kv + (context_base + decoders * (steps + k + 1)) * inv_block_ + decoders > capacity_)
    return;
  const auto seconds_at = [&](double j) {
    return cost_.seconds(
        {.decodes = decoders, .decode_context = context_base + decoders * (steps + j)});
  };
  lead_ = true;
  lead_decodes_ = plan_decodes_;
  lead_prefill_ = plan_prefill_;
  lead_seconds_ = plan_s0_;
  lead_end_ = milestone_;
  plan_prefill_ = 0;
  plan_decodes_ = true;
  plan_s0_ = seconds_at(0);
  plan_slope_ = k > 1 ? std::max(0.0, (seconds_at(k - 1) - plan_s0_) / (k - 1)) : 0;
  plan_steps_ = 1 + k;
  milestone_ = lead_end_ + run_seconds(k);
}

}  // namespace fleetsim
