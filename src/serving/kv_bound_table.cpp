#include "fleetsim/serving/kv_bound_table.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/serving/fluid_replica.hpp"
#include "fleetsim/serving/reference_engine.hpp"

namespace fleetsim {

namespace {

// The rates measured, as shares of the saturation; below the first a replica is as good as idle.
// They are closest where the tail of the waits climbs, as the quantile functions blended between
// two points read it high: on four A10Gs at 34 % load, 1.31 % of TTFTs over 2 s between 20 and
// 40 %, 1.08 % with 30 % between (the request level's 0.82 %). The last is overloaded: the router's
// queue grows (FluidQueue holds it) and keeps every replica at max_num_seqs, so the engine's part
// is steady there, and the router's wait is read no higher than the one before.
constexpr double kOverload = 1.5;
constexpr double kRateShares[] = {0.02, 0.1,  0.2, 0.3,  0.4, 0.55, 0.65,
                                  0.7,  0.75, 0.8, 0.85, 0.9, 0.95, kOverload};
constexpr double kMaterialShare = 0.7;
// Requests a point, after the first kWarmup (the engines start empty). Near saturation the waits
// are long and rare: at 20,000 a point, three streams read the TTFT p90 of four A10Gs at 80 %
// load as 4.7, 5.2 and 7.1 s.
constexpr std::size_t kRequests = 50000;
constexpr std::size_t kWarmup = 1000;

std::span<const EngineRequest> at_rate(std::span<const EngineRequest> base, double rate,
                                       std::vector<EngineRequest>& out) {
  out.assign(base.begin(), base.end());
  for (EngineRequest& r : out) r.arrival /= rate;
  return out;
}

// What an overloaded engine served a second between the first and the last fifth of its
// completions (full throughout, the router's queue growing).
double served_rate(const std::vector<EngineOutcome>& out) {
  std::vector<double> done;
  for (const EngineOutcome& o : out)
    if (!o.rejected) done.push_back(o.finished);
  if (done.size() < 10) return 0;  // all but a few too long: nothing to measure
  std::sort(done.begin(), done.end());
  const std::size_t first = done.size() / 5, last = done.size() - 1 - done.size() / 5;
  if (done[last] <= done[first]) return 0;
  return static_cast<double>(last - first) / (done[last] - done[first]);
}

// One draw of arrivals (at rate 1) and lengths for every measure: the points differ by their load
// alone, so the table is smooth in it. The stream is the table's own: the same engine and mix
// give the same table.
std::vector<EngineRequest> draw(const RequestMix& mix) {
  RngStream rng(0, "serving/kv-bound-table");
  std::vector<EngineRequest> base(kWarmup + kRequests);
  double t = 0;
  for (EngineRequest& r : base) {
    t += rng.standard_exponential();
    const RequestMix::Lengths& l = mix.at_quantile(rng.uniform());
    r = {.arrival = t, .prompt = l.prompt, .output = l.output};
  }
  return base;
}

// The share of what one replica holds that waits inside its engine for KV room, from its run's
// holding times.
double waiting_share(const EngineRunStats& stats) {
  double held = 0, waited = 0;
  for (std::size_t n = 0; n < stats.holding_seconds.size(); ++n) {
    const std::vector<double>& by_running = stats.holding_seconds[n];
    for (std::size_t k = 0; k < by_running.size(); ++k) {
      held += by_running[k] * static_cast<double>(n);
      waited += by_running[k] * static_cast<double>(n - k);
    }
  }
  return held > 0 ? waited / held : 0.0;
}

}  // namespace

double measured_saturation(const StepCost& cost, const RequestMix& mix, double near) {
  if (near <= 0) return 0;
  std::vector<EngineRequest> requests;
  return served_rate(run_routed_engines(cost, 1, at_rate(draw(mix), kOverload * near, requests)));
}

KvBoundTable::KvBoundTable(const StepCost& cost, const RequestMix& mix, double saturation_rate) {
  if (saturation_rate <= 0) return;
  const std::vector<EngineRequest> base = draw(mix);
  std::vector<EngineRequest> requests;
  // The closed forms stand where prompts seldom wait: one replica at 70 % decides before the
  // table is measured.
  {
    EngineRunStats stats;
    run_routed_engines(cost, 1, at_rate(base, kMaterialShare * saturation_rate, requests), &stats);
    if (waiting_share(stats) <= kMaterialWaiting) return;
  }
  for (const double share : kRateShares) rates_.push_back(share * saturation_rate);
  slots_ = cost.limits().max_num_seqs;
  std::vector<double> first, total, router;
  const auto keep_quantiles = [&](std::vector<double>& x) {
    std::sort(x.begin(), x.end());
    for (std::size_t k = 0; k < kQuantiles; ++k) {
      const auto at = static_cast<std::size_t>((static_cast<double>(k) + 0.5) / kQuantiles *
                                               static_cast<double>(x.size()));
      quantiles_.push_back(x[std::min(at, x.size() - 1)]);
    }
  };
  for (const double replicas : kReplicas) {
    for (const double rate : rates_) {
      EngineRunStats stats;
      const std::vector<EngineOutcome> out =
          run_routed_engines(cost, static_cast<std::uint32_t>(replicas),
                             at_rate(base, rate * replicas, requests), &stats);
      first.clear();
      total.clear();
      router.clear();
      for (std::size_t i = kWarmup; i < out.size(); ++i) {
        if (out[i].rejected) continue;
        first.push_back(out[i].first_token - out[i].dispatched);
        total.push_back(out[i].first_token - requests[i].arrival);
        router.push_back(out[i].dispatched - requests[i].arrival);
      }
      if (first.empty()) return;  // every request too long: nothing to serve
      Point p{.quantiles = quantiles_.size()};
      for (const double x : first) p.mean_first_token += x;
      p.mean_first_token /= static_cast<double>(first.size());
      p.running = running_.size();
      const std::vector<double> none;
      for (std::size_t n = 0; n <= slots_; ++n) {
        const std::vector<double>& by_running =
            n < stats.holding_seconds.size() ? stats.holding_seconds[n] : none;
        double time = 0;
        for (const double t : by_running) time += t;
        // The running count's quantiles given n; all of n where n was never held.
        std::size_t k = 0;
        double below = time > 0 ? by_running[0] : 0.0;
        for (std::size_t j = 0; j < kRunningQuantiles; ++j) {
          const double target = (static_cast<double>(j) + 0.5) / kRunningQuantiles * time;
          while (k + 1 < by_running.size() && below < target) below += by_running[++k];
          running_.push_back(time > 0 ? static_cast<double>(k) : static_cast<double>(n));
        }
      }
      p.preemptions = static_cast<double>(stats.preemptions) / static_cast<double>(out.size());
      keep_quantiles(first);
      keep_quantiles(total);
      keep_quantiles(router);
      points_.push_back(p);
    }
  }
  saturation_ = saturation_rate;
}

std::array<KvBoundTable::Corner, 4> KvBoundTable::corners(double rate, double replicas) const {
  const std::size_t n = rates_.size();
  std::size_t k = 0;
  double wr = 0;
  if (rate >= rates_.back()) {
    k = n - 2;
    wr = 1;
  } else if (rate > rates_.front()) {
    k = static_cast<std::size_t>(std::upper_bound(rates_.begin(), rates_.end(), rate) -
                                 rates_.begin()) -
        1;
    wr = (rate - rates_[k]) / (rates_[k + 1] - rates_[k]);
  }
  const double r = std::clamp(replicas, kReplicas.front(), kReplicas.back());
  std::size_t j = 0;
  while (j + 2 < kReplicas.size() && r > kReplicas[j + 1]) ++j;
  const double wn = (1 / kReplicas[j] - 1 / r) / (1 / kReplicas[j] - 1 / kReplicas[j + 1]);
  const Point* lo = &points_[j * n + k];
  const Point* hi = &points_[(j + 1) * n + k];
  return {
      {{lo, (1 - wn) * (1 - wr)}, {lo + 1, (1 - wn) * wr}, {hi, wn * (1 - wr)}, {hi + 1, wn * wr}}};
}

template <typename Field>
double KvBoundTable::blend(double rate, double replicas, Field field) const {
  double sum = 0;
  for (const Corner& c : corners(rate, replicas)) sum += c.weight * field(*c.point);
  return sum;
}

double KvBoundTable::mean_first_token(double rate, double replicas) const {
  return blend(rate, replicas, [](const Point& p) { return p.mean_first_token; });
}

double KvBoundTable::running(double rate, double replicas, std::uint32_t held, double u) const {
  const std::size_t at =
      std::min(held, slots_) * kRunningQuantiles +
      std::min(kRunningQuantiles - 1, static_cast<std::size_t>(u * kRunningQuantiles));
  return blend(rate, replicas, [&](const Point& p) { return running_[p.running + at]; });
}

double KvBoundTable::preemptions(double rate, double replicas) const {
  return blend(rate, replicas, [](const Point& p) { return p.preemptions; });
}

// The quantile functions of the corners, mixed by their weights (their values at one u). The
// times from arrival are read below saturation only: above, the router's queue grows.
double KvBoundTable::quantile(double rate, double replicas, double u, Part part) const {
  const auto q = std::min(kQuantiles - 1, static_cast<std::size_t>(u * kQuantiles));
  const std::size_t at = static_cast<std::size_t>(part) * kQuantiles + q;
  if (part != Part::FirstToken) rate = std::min(rate, rates_[rates_.size() - 2]);
  return blend(rate, replicas, [&](const Point& p) { return quantiles_[p.quantiles + at]; });
}

}  // namespace fleetsim
