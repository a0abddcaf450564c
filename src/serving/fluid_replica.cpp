#include "fleetsim/serving/fluid_replica.hpp"

#include <algorithm>
#include <cmath>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// Φ⁻¹(u) by Abramowitz & Stegun 26.2.23 (error below 4.5e-4).
double standard_normal_quantile(double u) {
  const double v = std::clamp(u, 1e-12, 1 - 1e-12);
  const double tail = v < 0.5 ? v : 1 - v;
  const double t = std::sqrt(-2 * std::log(tail));
  const double z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                           (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
  return v < 0.5 ? -z : z;
}

}  // namespace

double poisson_quantile(double mean, double u) {
  if (mean <= 0) return 0;
  if (mean < 30) {
    double p = std::exp(-mean), cdf = p;
    int k = 0;
    while (u > cdf && k < 1000) {
      ++k;
      p *= mean / k;
      cdf += p;
    }
    return k;
  }
  return std::max(0.0, std::floor(mean + std::sqrt(mean) * standard_normal_quantile(u) + 0.5));
}

double count_quantile(double mean, double variance, double u) {
  if (mean <= 0) return 0;
  if (variance >= mean) return poisson_quantile(mean, u);
  // Binomial(n, p) with np = mean and np(1 − p) = variance, n whole.
  const double n = std::max(1.0, std::round(mean * mean / std::max(mean - variance, 1e-12)));
  const double p = std::min(1.0, mean / n);
  if (p >= 1) return n;
  if (mean * (1 - p) >= 30) {
    const double sd = std::sqrt(n * p * (1 - p));
    return std::clamp(std::floor(mean + sd * standard_normal_quantile(u) + 0.5), 0.0, n);
  }
  double q = std::pow(1 - p, n), cdf = q;
  double k = 0;
  while (u > cdf && k < n) {
    q *= (n - k) / (k + 1) * p / (1 - p);
    ++k;
    cdf += q;
  }
  return k;
}

namespace {

// The share of its KV cache an overloaded vLLM keeps in use on average: it admits a prompt
// whenever its blocks fit, so the cache is full but for less than a prompt's blocks, and the
// decodes' growth preempts the newest sequence, which is prefilled again later (the recompute is
// modelled apart: preemptions_per_arrival). Fitted on the request-level engine
// (tests/unit/serving/fluid_replica_test.cpp: Llama-3.1-8B on an A10G with 1,024-token prompts,
// where its served rate at saturation is the engine's within 1 %).
constexpr double kUsableKvShare = 0.95;

}  // namespace

RequestMix::RequestMix(std::vector<Lengths> samples) : samples_(std::move(samples)) {
  FLEETSIM_ASSERT(!samples_.empty());
  for (Lengths& l : samples_) l.output = std::max<std::uint32_t>(1, l.output);
  std::sort(samples_.begin(), samples_.end(), [](const Lengths& a, const Lengths& b) {
    return a.output != b.output ? a.output < b.output : a.prompt < b.prompt;
  });
  double output = 0, output2 = 0;
  for (const Lengths& l : samples_) {
    const double i = l.prompt, o = l.output;
    output += o;
    output2 += o * o;
    prompt_ += i;
    decode_steps_ += o - 1;
    decode_context_ += (o - 1) * i + o * (o - 1) / 2;
    prefill_context_ += i * i / 2;
  }
  const auto count = static_cast<double>(samples_.size());
  prompts_.reserve(samples_.size());
  for (const Lengths& l : samples_) prompts_.push_back(l.prompt);
  std::sort(prompts_.begin(), prompts_.end());
  prompt_tail_.assign(prompts_.size() + 1, 0.0);
  for (std::size_t k = prompts_.size(); k-- > 0;)
    prompt_tail_[k] = prompt_tail_[k + 1] + prompts_[k];
  prompt_ /= count;
  decode_steps_ /= count;
  decode_context_ /= count;
  prefill_context_ /= count;
  output /= count;
  output_cv2_ = std::max(0.0, output2 / count / (output * output) - 1);
}

// G(r) = E[(B − r)+] falls from E[B] at r = 0 to 0 at the longest step, linearly between two
// steps' lengths; at the k-th shortest step it is b1 (Σ_{j≥k} i_j − (N − k) i_k) ÷ N, b0
// cancelling. The residual at v is where G(r) = (1 − v) E[B]: the first k with G(B_k) at most that,
// then the line through it.
RequestMix::Landing RequestMix::residual_quantile(double b0, double b1, double v) const {
  const auto n = static_cast<double>(prompts_.size());
  const double target = (1 - v) * (b0 + b1 * prompt_);
  std::size_t lo = 0, hi = prompts_.size() - 1;  // G(B_{N−1}) = 0 ≤ target
  while (lo < hi) {
    const std::size_t k = (lo + hi) / 2;
    const double after = n - static_cast<double>(k);
    (b1 * (prompt_tail_[k] - after * prompts_[k]) / n > target ? lo = k + 1 : hi = k);
  }
  const double after = n - static_cast<double>(lo);
  const double longer = after * b0 + b1 * prompt_tail_[lo];  // Σ B_j over j ≥ lo
  return {.rest = std::max(0.0, (longer - n * target) / after), .step = longer / after};
}

// A request holds blocks for its prompt and the tokens it has written, rounded up to a whole
// block: on average half a block more than its tokens. Under reserve_output it holds its prompt
// and all its output from admission.
double RequestMix::held_token_steps(double block_tokens, bool reserve_output) const {
  double sum = 0;
  for (const Lengths& l : samples_) {
    const double i = l.prompt, o = l.output;
    sum += reserve_output ? o * (i + o + block_tokens / 2)
                          : o * (i + 1 + block_tokens / 2) + o * (o - 1) / 2;
  }
  return sum / static_cast<double>(samples_.size());
}

FluidReplica::FluidReplica(const StepCost& cost, const RequestMix& mix)
    : cost_(cost),
      mix_(mix),
      budget_(cost.limits().max_num_batched_tokens),
      capacity_(static_cast<double>(std::max<std::int64_t>(0, cost.kv_capacity_tokens()))),
      held_per_arrival_(
          mix.held_token_steps(cost.limits().block_tokens, cost.limits().reserve_output)) {
  // The served rate grows with the batch, so the most it serves is at the largest feasible n,
  // found by bisection (feasibility is monotone in n).
  double lo = 0, hi = 1;
  while (feasible(hi) && hi < 1e9) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (feasible(mid) ? lo : hi) = mid;
  }
  saturation_ = at_arrivals_per_step(lo);
  // Where the KV cache binds, an overloaded engine preempts and prefills again (vLLM's recompute;
  // TensorRT-LLM's reservation never preempts).
  const EngineLimits& limits = cost.limits();
  if (!limits.reserve_output && lo * held_per_arrival_ >= 0.999 * kUsableKvShare * capacity_)
    saturation_ = at_arrivals_per_step(lo, preemptions_per_arrival(saturation_));
  // at_rate's table: n from 0 to saturation, denser near 0 where the rate bends most.
  table_n_.resize(kTablePoints + 1);
  table_rate_.resize(kTablePoints + 1);
  for (std::size_t k = 0; k <= kTablePoints; ++k) {
    const double x = static_cast<double>(k) / kTablePoints;
    table_n_[k] = lo * x * x;
    table_rate_[k] = at_arrivals_per_step(table_n_[k]).rate;
  }
  // The cache binds only where it cannot hold max_num_seqs of the longest requests: there the
  // engine is measured, its saturation always, its waits where prompts wait.
  double longest = 0;
  for (const RequestMix::Lengths& l : mix.samples())
    longest = std::max(longest, static_cast<double>(l.prompt) + l.output);
  if (limits.max_num_seqs * (longest + limits.block_tokens) > capacity_) {
    // Full as the closed forms have it (its batch, its cache), it serves the measured rate.
    if (const double served = measured_saturation(cost, mix, saturation_.rate);
        served > 0 && served < saturation_.rate)
      saturation_.rate = served;
    measured_ = KvBoundTable(cost, mix, saturation_.rate);
  }
}

StepWork FluidReplica::decode_work(double n) const {
  return {.decodes = n * mix_.decode_steps(), .decode_context = n * mix_.decode_context()};
}

// max_num_seqs, the KV cache and, when prompts share steps with decodes, the token budget.
bool FluidReplica::feasible(double n) const {
  const EngineLimits& l = cost_.limits();
  const double running = n * (mix_.decode_steps() + 1);
  if (running > l.max_num_seqs) return false;
  if (n * held_per_arrival_ > kUsableKvShare * capacity_) return false;
  if (l.mixed_steps && n * (mix_.prompt() + mix_.decode_steps()) > budget_) return false;
  return true;
}

// An engine whose KV cache is full admits a prompt whenever its blocks fit, so the blocks that
// completions free go to new prompts and the running decodes' growth, a block per sequence every
// block_tokens steps, finds none in a step where nothing completes: it preempts the newest
// sequence, which frees about its prompt's blocks, and prefills it again later. With completions a
// step Poisson of mean n (a step's arrivals at the fill point), the blocks short a step are
// E[(G − F C)+] for growth G and F blocks freed per completion.
double FluidReplica::preemptions_per_arrival(const OperatingPoint& full) const {
  const double block = cost_.limits().block_tokens, n = full.arrivals_per_step;
  if (n <= 0) return 0;
  const double growth = full.running / block;
  const double freed = (mix_.prompt() + mix_.decode_steps() + 1 + block / 2) / block;
  const double preempted = (mix_.prompt() + block / 2) / block;
  double p = std::exp(-n), short_blocks = 0;
  for (int k = 0; k * freed < growth; ++k) {
    short_blocks += (growth - k * freed) * p;
    p *= n / (k + 1);
  }
  return short_blocks / preempted / n;
}

OperatingPoint FluidReplica::at_arrivals_per_step(double n, double recomputed) const {
  const EngineLimits& l = cost_.limits();
  const StepWork decodes = decode_work(n);
  const double room = l.mixed_steps ? std::max(1.0, budget_ - decodes.decodes) : budget_;
  // Each arrival's prompt, and those prefilled again after a preemption.
  const double prompt = mix_.prompt() * (1 + recomputed);
  // Steps that carry prompts: one per arrival while arrivals are rarer than steps, and as many
  // as the prompts' tokens need at the budget left.
  const double q = std::min(1.0, std::max(n, n * prompt / room));
  double step = 0, decode_step = 0, prompt_step = 0, per_prompt_token = 0;
  if (q > 0) {
    const double per_step = n / q;
    StepWork prompts{.prefill_tokens = per_step * prompt,
                     .prefill_context = per_step * mix_.prefill_context() * (1 + recomputed)};
    if (l.mixed_steps) {
      prompts.decodes = decodes.decodes;
      prompts.decode_context = decodes.decode_context;
    }
    decode_step = cost_.seconds(decodes);
    prompt_step = cost_.seconds(prompts);
    step = l.mixed_steps ? (1 - q) * decode_step + q * prompt_step : decode_step + q * prompt_step;
    // The step with one more mean prompt: what a prompt's tokens add to the step it rides in.
    StepWork more = prompts;
    more.prefill_tokens += mix_.prompt();
    more.prefill_context += mix_.prefill_context();
    if (mix_.prompt() > 0) {
      per_prompt_token = std::clamp((cost_.seconds(more) - prompt_step) / mix_.prompt(), 0.0,
                                    prompt_step / mix_.prompt());
    }
  } else {
    decode_step = prompt_step = step = cost_.seconds(decodes);
  }
  OperatingPoint p;
  p.decode_step_seconds = decode_step;
  p.prompt_step_seconds = prompt_step;
  p.per_prompt_token = per_prompt_token;
  p.arrivals_per_step = n;
  p.step_seconds = step;
  p.prefill_share = q;
  p.running = n * (mix_.decode_steps() + 1);
  p.kv_usage = capacity_ > 0 ? std::min(1.0, n * held_per_arrival_ / capacity_) : 0.0;
  p.rate = step > 0 ? n / step : 0;
  p.busy = compute_busy_share(p);
  p.residual_seconds = residual_step(p);
  p.prefill_room = std::max(1.0, room);
  p.prompts_ahead = p.rate * 2 * p.residual_seconds / std::max(p.busy, 1e-12);
  if (l.mixed_steps) p.beside_prefill = decodes;
  return p;
}

// The served rate grows with n (a step's time grows less than in proportion), so the table's
// rates ascend: the n of a rate is interpolated between two of its points.
OperatingPoint FluidReplica::at_rate(double rate) const {
  if (rate >= saturation_.rate) return saturation_;
  if (rate <= 0) return at_arrivals_per_step(0);
  const auto above = std::upper_bound(table_rate_.begin(), table_rate_.end(), rate);
  const auto k = static_cast<std::size_t>(above - table_rate_.begin());
  if (k == 0 || k >= table_rate_.size()) return at_arrivals_per_step(0);
  const double r0 = table_rate_[k - 1], r1 = table_rate_[k];
  const double n0 = table_n_[k - 1], n1 = table_n_[k];
  return at_arrivals_per_step(n0 + (n1 - n0) * (rate - r0) / std::max(r1 - r0, 1e-300));
}

// The steps its prompt takes, with `prompts_beside` others: those that arrive during the step it
// waits out, which are admitted with it (mixed steps share one budget, first come first served).
double FluidReplica::prefill_seconds(std::uint32_t prompt, double prompts_beside,
                                     const OperatingPoint& at) const {
  StepWork work = at.beside_prefill;
  const double tokens = prompt + prompts_beside * mix_.prompt();
  const double chunks = std::max(1.0, std::ceil(tokens / at.prefill_room));
  work.prefill_tokens = tokens / chunks;
  work.prefill_context = (prompt * prompt / 2.0 + prompts_beside * mix_.prefill_context()) / chunks;
  return chunks * cost_.seconds(work);
}

double FluidReplica::time_to_first_token(std::uint32_t prompt, const OperatingPoint& at) const {
  return at.residual_seconds + prefill_seconds(prompt, at.prompts_ahead, at);
}

// A request that lands in a long step waits long, and more prompts arrive during that step to
// share its prefill: both follow from where it lands.
double FluidReplica::time_to_first_token(std::uint32_t prompt, const OperatingPoint& at, double u,
                                         double overlap) const {
  const RequestMix::Landing landing = residual_quantile(at, u, overlap);
  return landing.rest + prefill_seconds(prompt, overlap * at.rate * landing.step, at);
}

// Without mixed steps a cycle is a decode step and its share of prompt steps.
double FluidReplica::decode_seconds(std::uint32_t output, const OperatingPoint& at, double u,
                                    double overlap) const {
  const double steps = std::max(0, static_cast<int>(output) - 1);
  const double prompted = poisson_quantile(overlap * steps * at.prefill_share, u);
  if (cost_.limits().mixed_steps) {
    const double with = std::min(prompted, steps);
    return (steps - with) * at.decode_step_seconds + with * at.prompt_step_seconds;
  }
  return steps * at.decode_step_seconds + prompted * at.prompt_step_seconds;
}

// The rest of the step under way when a request arrives, if the engine is busy: a Poisson
// arrival lands in a step with probability proportional to its length, so with steps of two
// lengths (with a prompt and without) the mean rest is E[s²] ÷ 2 E[s].
double FluidReplica::residual_step(const OperatingPoint& at) const {
  const double q = at.prefill_share;
  const double decodes = cost_.limits().mixed_steps ? 1 - q : 1;
  const double a = at.decode_step_seconds, b = at.prompt_step_seconds;
  const double span = decodes * a + q * b;
  if (span <= 0) return 0;
  // The prompts' spread would add per_prompt_token² Var[i] to b²: the drawn rests have it
  // (residual_quantile), the mean does not yet. The gauges and the router's holding time read this
  // mean, and their calibration (jsq_busy, the HPA cost tests) was fitted without it: with it
  // llm-inference's cost went from +0.6 % to +1.0 % over the request level's.
  return at.busy * (decodes * a * a + q * b * b) / (2 * span);
}

// Its distribution: none while idle (nor a step to share); else it lands in a prompt's step with
// probability q b ÷ span, where the longer prompts' steps are the likelier (RequestMix), or in a
// decode step, uniformly.
RequestMix::Landing FluidReplica::residual_quantile(const OperatingPoint& at, double u,
                                                    double overlap) const {
  const double idle = 1 - at.busy;
  if (u < idle) return {};
  u = (u - idle) / (1 - idle);
  const double q = at.prefill_share;
  const double decodes = cost_.limits().mixed_steps ? 1 - q : 1;
  const double a = at.decode_step_seconds, b = at.prompt_step_seconds;
  const double span = decodes * a + q * b;
  if (span <= 0) return {};
  const double in_long = overlap * q * b / span;
  if (u < in_long) {
    return mix_.residual_quantile(b - at.per_prompt_token * mix_.prompt(), at.per_prompt_token,
                                  u / in_long);
  }
  return {.rest = (u - in_long) / (1 - in_long) * a, .step = a};
}

double FluidReplica::mean_latency(const OperatingPoint& at) const {
  const auto mean_prompt = static_cast<std::uint32_t>(std::lround(mix_.prompt()));
  return time_to_first_token(mean_prompt, at) + mix_.decode_steps() * at.step_seconds;
}

double FluidReplica::mean_latency(const OperatingPoint& at, double load, double replicas) const {
  if (measured_.empty()) return mean_latency(at);
  return measured_.mean_first_token(load, replicas) + mix_.decode_steps() * at.step_seconds;
}

// M/G/∞: the requests in flight are Poisson with mean rate × latency, so the engine idles with
// probability e^−L. The latency is taken without the residual step it itself depends on.
double FluidReplica::compute_busy_share(const OperatingPoint& at) const {
  const auto mean_prompt = static_cast<std::uint32_t>(std::lround(mix_.prompt()));
  StepWork work{.prefill_tokens = static_cast<double>(mean_prompt),
                .prefill_context = mean_prompt * mean_prompt / 2.0};
  const double latency = cost_.seconds(work) + mix_.decode_steps() * at.step_seconds;
  return 1 - std::exp(-at.rate * latency);
}

}  // namespace fleetsim
