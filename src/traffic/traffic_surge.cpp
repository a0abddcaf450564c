#include "fleetsim/traffic/traffic_surge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "traffic_checks.hpp"

namespace fleetsim {

void validate(const SurgeConfig& config) {
  const SourceLocation& where = config.where;
  traffic_checks::within(config.factor, 0, kMaxSurgeFactor, "factor", where);
  traffic_checks::time_offset(config.start, "start", where);
  traffic_checks::time_offset(config.ramp_up, "ramp_up", where);
  traffic_checks::time_offset(config.duration, "duration", where);
  traffic_checks::time_offset(config.ramp_down, "ramp_down", where);
  std::visit([](const auto& base) { validate(base); }, config.base);
}

std::unique_ptr<TrafficSource> make_base_traffic_source(const BaseTrafficConfig& config,
                                                        RngStream rng) {
  return std::visit(
      [&](const auto& c) -> std::unique_ptr<TrafficSource> {
        using Config = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<Config, ConstantConfig>) {
          return std::make_unique<ConstantSource>(c, rng);
        } else if constexpr (std::is_same_v<Config, PoissonConfig>) {
          return std::make_unique<PoissonSource>(c, rng);
        } else if constexpr (std::is_same_v<Config, DiurnalConfig>) {
          return std::make_unique<DiurnalSource>(c, rng);
        } else if constexpr (std::is_same_v<Config, MmppConfig>) {
          return std::make_unique<MmppSource>(c, rng);
        } else {
          static_assert(std::is_same_v<Config, ReplayConfig>);
          return std::make_unique<ReplaySource>(c, rng);
        }
      },
      config);
}

SurgeSource::SurgeSource(const SurgeConfig& config, RngStream rng)
    : factor_(config.factor), thinning_(derive_stream(rng, "surge-thinning")) {
  validate(config);
  start_ = at(config.start);
  full_ = start_ + config.ramp_up;
  fall_ = full_ + config.duration;
  end_ = fall_ + config.ramp_down;
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(factor_)));
  copies_.resize(k);
  for (std::size_t j = 0; j < k; ++j) {
    BaseTrafficConfig base = config.base;
    // A constant lattice's copies interleave: copy j is shifted by j/k of the spacing.
    if (auto* constant = std::get_if<ConstantConfig>(&base); constant && constant->rps > 0) {
      const double shift_us = 1e6 / constant->rps * static_cast<double>(j) / static_cast<double>(k);
      constant->first_arrival += micros(std::llround(shift_us));
    }
    copies_[j].source = make_base_traffic_source(
        base, j == 0 ? rng : derive_stream(rng, fmt::format("surge-copy-{}", j)));
    if (j > 0) copies_[j].source->fast_forward(start_);
    refill(j);
  }
  // Copies j ≥ 1 only matter inside the surge: drop what they produce before it.
  for (std::size_t j = 1; j < k; ++j) {
    while (copies_[j].head && copies_[j].head->arrival < start_) refill(j);
  }
}

void SurgeSource::refill(std::size_t j) {
  Copy& c = copies_[j];
  c.head = c.source->next();
  if (j > 0 && c.head && c.head->arrival >= end_) c.head.reset();  // past the surge: done
}

double SurgeSource::factor_at(SimTime t) const {
  if (t < start_ || t >= end_) return 1;
  if (t < full_) return 1 + (factor_ - 1) * (to_seconds(t - start_) / to_seconds(full_ - start_));
  if (t < fall_) return factor_;
  return factor_ + (1 - factor_) * (to_seconds(t - fall_) / to_seconds(end_ - fall_));
}

std::optional<Request> SurgeSource::next() {
  while (true) {
    std::size_t best = copies_.size();
    for (std::size_t j = 0; j < copies_.size(); ++j) {
      if (!copies_[j].head) continue;
      if (best == copies_.size() || copies_[j].head->arrival < copies_[best].head->arrival)
        best = j;
    }
    if (best == copies_.size()) return std::nullopt;
    const Request r = *copies_[best].head;
    refill(best);
    const double keep = std::clamp(factor_at(r.arrival) - static_cast<double>(best), 0.0, 1.0);
    if (keep >= 1 || (keep > 0 && thinning_.uniform() < keep)) return r;
  }
}

void SurgeSource::fast_forward(SimTime t) {
  for (std::size_t j = 0; j < copies_.size(); ++j) {
    if (!copies_[j].head || copies_[j].head->arrival >= t) continue;
    copies_[j].source->fast_forward(t);
    while (copies_[j].head && copies_[j].head->arrival < t) refill(j);
  }
}

}  // namespace fleetsim
