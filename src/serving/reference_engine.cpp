#include "fleetsim/serving/reference_engine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>

#include "fleetsim/serving/engine_replica.hpp"

namespace fleetsim {

namespace {

struct RefSeq {
  std::size_t request = 0;
  std::uint64_t admitted = 0;
  std::uint32_t prompt = 0;       // tokens to prefill (a preempted sequence: all it had)
  std::uint32_t prefilled = 0;    // of them, computed
  std::uint32_t context = 0;      // decoding: tokens in the cache
  std::uint32_t to_generate = 0;  // output tokens still to produce
  bool decoding = false;
  bool first_token_sent = false;
};

class Reference {
 public:
  Reference(const StepCost& cost, std::span<const EngineRequest> requests)
      : cost_(cost),
        limits_(cost.limits()),
        requests_(requests),
        out_(requests.size()),
        capacity_blocks_(cost.kv_capacity_tokens() / limits_.block_tokens) {}

  std::vector<EngineOutcome> run(EngineRunStats* stats) {
    double t = 0;
    std::size_t next = 0;
    while (next < requests_.size() || !waiting_.empty() || !running_.empty()) {
      if (waiting_.empty() && running_.empty()) t = std::max(t, requests_[next].arrival);
      while (next < requests_.size() && requests_[next].arrival <= t) arrive(next++, t);
      // vLLM's order: room for the running sequences first; waiting ones are admitted only in a
      // step that preempted none.
      if (!make_room()) admit();
      if (running_.empty()) {
        if (next < requests_.size()) t = std::max(t, requests_[next].arrival);
        continue;
      }
      t += step(t);
      peak_running_ = std::max<std::uint32_t>(peak_running_, running_.size());
    }
    if (stats != nullptr) *stats = {steps_, preemptions_, peak_running_};
    return out_;
  }

 private:
  std::int64_t blocks(std::int64_t tokens) const {
    return (tokens + limits_.block_tokens - 1) / limits_.block_tokens;
  }
  std::int64_t held_blocks(const RefSeq& s) const {
    if (limits_.reserve_output) return blocks(std::int64_t{s.prompt} + s.to_generate);
    return s.decoding ? blocks(s.context) : blocks(std::int64_t{s.prompt} + 1);
  }
  // What the running sequences hold once the step writes its tokens: the scheduler allocates
  // their slots before it admits a waiting one (under reserve_output they hold it all already).
  std::int64_t needed_blocks() const {
    std::int64_t need = 0;
    for (const RefSeq& s : running_)
      need += s.decoding && !limits_.reserve_output ? blocks(std::int64_t{s.context} + 1)
                                                    : held_blocks(s);
    return need;
  }

  void arrive(std::size_t i, double t) {
    const EngineRequest& r = requests_[i];
    const std::uint32_t output = std::max<std::uint32_t>(1, r.output);
    if (!cost_.accepts(r.prompt, output)) {
      out_[i] = {.first_token = t, .finished = t, .rejected = true};
      return;
    }
    waiting_.push_back({.request = i, .prompt = r.prompt, .to_generate = output});
  }

  // vLLM V1 schedules the running sequences first and admits a waiting one only while the step
  // has tokens left for it (with chunked prefill; without, V0's prompt steps are modelled).
  void admit() {
    double budget = limits_.max_num_batched_tokens;
    for (const RefSeq& s : running_) {
      if (!s.decoding) budget -= s.prompt - s.prefilled;
      if (s.decoding && limits_.mixed_steps) budget -= 1;
    }
    while (!waiting_.empty() && running_.size() < limits_.max_num_seqs &&
           (!limits_.chunked_prefill || budget > 0)) {
      RefSeq s = waiting_.front();
      s.decoding = false;
      s.prefilled = 0;
      if (needed_blocks() + held_blocks(s) > capacity_blocks_) return;
      waiting_.pop_front();
      s.admitted = ++admissions_;
      budget -= s.prompt;
      running_.push_back(s);
    }
  }

  // Decoding sequences need a block for the token this step writes; preempt the newest until
  // every one has it.
  bool make_room() {
    if (limits_.reserve_output) return false;
    bool any = false;
    for (;;) {
      const std::int64_t need = needed_blocks();
      if (need <= capacity_blocks_ || running_.size() <= 1) return any;
      auto newest = std::max_element(
          running_.begin(), running_.end(),
          [](const RefSeq& a, const RefSeq& b) { return a.admitted < b.admitted; });
      RefSeq s = *newest;
      running_.erase(newest);
      ++preemptions_;
      any = true;
      if (s.decoding) s.prompt = s.context;
      s.decoding = false;
      s.prefilled = 0;
      waiting_.push_front(s);
    }
  }

  double step(double t) {
    ++steps_;
    bool any_prefill = false;
    for (const RefSeq& s : running_) any_prefill |= !s.decoding;
    const bool decode = limits_.mixed_steps || !any_prefill;
    StepWork work;
    std::vector<std::uint32_t> chunk(running_.size(), 0);
    double budget = limits_.max_num_batched_tokens;
    if (decode) {
      for (const RefSeq& s : running_) {
        if (!s.decoding) continue;
        work.decodes += 1;
        work.decode_context += s.context;
        budget -= 1;
      }
    }
    // Prompt chunks in admission order (running_ is in that order).
    for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
      const RefSeq& s = running_[i];
      if (s.decoding) continue;
      const std::uint32_t left = s.prompt - s.prefilled;
      chunk[i] = static_cast<std::uint32_t>(std::min<double>(left, budget));
      work.prefill_tokens += chunk[i];
      work.prefill_context += chunk[i] * (s.prefilled + chunk[i] / 2.0);
      budget -= chunk[i];
    }
    const double seconds = cost_.seconds(work);
    const double end = t + seconds;
    std::vector<RefSeq> still;
    still.reserve(running_.size());
    for (std::size_t i = 0; i < running_.size(); ++i) {
      RefSeq s = running_[i];
      if (s.decoding && decode) {
        s.context += 1;
        s.to_generate -= 1;
      } else if (!s.decoding && chunk[i] > 0) {
        s.prefilled += chunk[i];
        if (s.prefilled == s.prompt) {
          EngineOutcome& o = out_[s.request];
          if (!s.first_token_sent) o.first_token = end;
          s.first_token_sent = true;
          s.decoding = true;
          s.context = s.prompt + 1;
          s.to_generate -= 1;
        }
      }
      if (s.to_generate == 0) {
        out_[s.request].finished = end;
        continue;
      }
      still.push_back(s);
    }
    running_ = std::move(still);
    return seconds;
  }

  const StepCost& cost_;
  const EngineLimits& limits_;
  std::span<const EngineRequest> requests_;
  std::vector<EngineOutcome> out_;
  std::int64_t capacity_blocks_;
  std::deque<RefSeq> waiting_;
  std::vector<RefSeq> running_;  // admission order
  std::uint64_t admissions_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t preemptions_ = 0;
  std::uint32_t peak_running_ = 0;
};

class Recorder final : public EngineListener {
 public:
  explicit Recorder(std::vector<EngineOutcome>& out) : out_(out) {}
  std::vector<std::size_t> request_of;  // by slot
  std::vector<std::uint32_t> free_slots;
  std::size_t ended = 0;  // requests finished or rejected

  void on_first_token(std::uint32_t slot, double at) override {
    out_[request_of[slot]].first_token = at;
  }
  void on_finished(std::uint32_t slot, double at) override {
    out_[request_of[slot]].finished = at;
    free_slots.push_back(slot);
    ++ended;
  }
  void dispatched(std::size_t request, double at) { out_[request].dispatched = at; }
  void on_rejected(std::uint32_t slot, double at) override {
    out_[request_of[slot]] = {
        .first_token = at, .finished = at, .rejected = true, .dispatched = at};
    free_slots.push_back(slot);
    ++ended;
  }

 private:
  std::vector<EngineOutcome>& out_;
};

// EngineReplicas behind the request level's router (ServingModel): a request goes to the replica
// with the fewest in flight, the first among equals, while it holds fewer than max_num_seqs; the
// rest wait in the router's queue, first come, first served.
struct RoutedEngines {
  struct Member {
    Member(const StepCost& cost, std::vector<EngineOutcome>& out)
        : recorder(out), engine(cost, recorder) {
      const std::uint32_t slots = cost.limits().max_num_seqs;
      recorder.request_of.assign(slots, 0);
      for (std::uint32_t s = slots; s-- > 0;) recorder.free_slots.push_back(s);
    }
    Recorder recorder;
    EngineReplica engine;
  };

  RoutedEngines(const StepCost& cost, std::uint32_t replicas, std::vector<EngineOutcome>& out)
      : slots(cost.limits().max_num_seqs) {
    for (std::uint32_t i = 0; i < replicas; ++i)
      members.push_back(std::make_unique<Member>(cost, out));
  }

  double next_milestone() const {
    double next = std::numeric_limits<double>::infinity();
    for (const auto& m : members) next = std::min(next, m->engine.next_milestone());
    return next;
  }

  // Every engine runs to `now`; what ran before it is counted at the gauges it had.
  void advance(double now) {
    for (const auto& m : members) {
      const std::size_t held = slots - m->recorder.free_slots.size();
      const std::size_t running = m->engine.running();
      if (held >= holding_seconds.size()) holding_seconds.resize(held + 1);
      std::vector<double>& by_running = holding_seconds[held];
      if (running >= by_running.size()) by_running.resize(running + 1, 0.0);
      by_running[running] += now - counted;
    }
    counted = now;
    for (const auto& m : members) m->engine.advance(now);
  }

  void dispatch(double now, std::span<const EngineRequest> requests) {
    while (!queue.empty()) {
      Member* best = nullptr;
      for (const auto& m : members)
        if (!m->recorder.free_slots.empty() &&
            (best == nullptr || m->recorder.free_slots.size() > best->recorder.free_slots.size()))
          best = m.get();
      if (best == nullptr) break;
      const std::uint32_t slot = best->recorder.free_slots.back();
      best->recorder.free_slots.pop_back();
      best->recorder.request_of[slot] = queue.front();
      const EngineRequest& r = requests[queue.front()];
      best->recorder.dispatched(queue.front(), now);
      queue.pop_front();
      best->engine.add(now, slot, r.prompt, r.output);
    }
    for (const auto& m : members) peak = std::max(peak, m->engine.running());
  }

  std::size_t ended() const {
    std::size_t n = 0;
    for (const auto& m : members) n += m->recorder.ended;
    return n;
  }

  void report(EngineRunStats* stats) {
    if (stats == nullptr) return;
    *stats = {.peak_running = peak, .holding_seconds = std::move(holding_seconds)};
    for (const auto& m : members) stats->preemptions += m->engine.preemptions();
  }

  std::vector<std::unique_ptr<Member>> members;
  std::deque<std::size_t> queue;  // arrived, waiting for a slot
  std::uint32_t peak = 0;
  std::size_t slots;
  double counted = 0;
  std::vector<std::vector<double>> holding_seconds;
};

}  // namespace

std::vector<EngineOutcome> run_reference_engine(const StepCost& cost,
                                                std::span<const EngineRequest> requests,
                                                EngineRunStats* stats) {
  return Reference(cost, requests).run(stats);
}

std::vector<EngineOutcome> run_closed_form_engine(const StepCost& cost,
                                                  std::span<const EngineRequest> requests,
                                                  EngineRunStats* stats) {
  return run_routed_engines(cost, 1, requests, stats);
}

std::vector<EngineOutcome> run_routed_engines(const StepCost& cost, std::uint32_t replicas,
                                              std::span<const EngineRequest> requests,
                                              EngineRunStats* stats) {
  std::vector<EngineOutcome> out(requests.size());
  RoutedEngines routed(cost, replicas, out);
  std::size_t next = 0;
  for (;;) {
    const double arrival =
        next < requests.size() ? requests[next].arrival : std::numeric_limits<double>::infinity();
    const double milestone = routed.next_milestone();
    if (std::isinf(arrival) && std::isinf(milestone)) break;
    const double now = std::min(arrival, milestone);
    routed.advance(now);
    if (arrival <= milestone) routed.queue.push_back(next++);
    routed.dispatch(now, requests);
  }
  routed.report(stats);
  return out;
}

std::vector<EngineOutcome> run_closed_loop_engine(const StepCost& cost, std::uint32_t users,
                                                  std::span<EngineRequest> requests,
                                                  EngineRunStats* stats) {
  std::vector<EngineOutcome> out(requests.size());
  RoutedEngines routed(cost, 1, out);
  std::size_t next = 0, answered = 0;
  // Each ended request frees its user, who sends the next one at once. A rejection ends a
  // request inside dispatch(), at once: repeat until nothing more ends.
  auto refill = [&](double now) {
    do {
      answered = routed.ended();
      while (next < requests.size() && next - answered < users) {
        requests[next].arrival = now;
        routed.queue.push_back(next++);
      }
      routed.dispatch(now, requests);
    } while (answered < routed.ended());
  };
  refill(0);
  for (;;) {
    const double milestone = routed.next_milestone();
    if (std::isinf(milestone)) break;
    routed.advance(milestone);
    refill(milestone);
  }
  routed.report(stats);
  return out;
}

}  // namespace fleetsim
