#include "fleetsim/traffic/traffic_diurnal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "traffic_checks.hpp"

namespace fleetsim {

namespace {
constexpr double kHoursPerDay = 24;
constexpr double kDayUs = 24.0 * 3600.0 * 1e6;
constexpr double kHourUs = 3600.0 * 1e6;
// The bounds are widened by this relative margin, so that rounding in cos can never put a
// computed λ(t) outside its bin's bounds (which would bias the thinning).
constexpr double kBoundMargin = 1e-12;
}  // namespace

void validate(const DiurnalConfig& config) {
  traffic_checks::rate(config.mean_rps, "mean_rps", config.where);
  traffic_checks::finite(config.peak_to_trough, "peak_to_trough", config.where);
  if (config.peak_to_trough < 1) {
    traffic_checks::fail(config.where, "peak_to_trough",
                         fmt::format("must be at least 1 (the peak is the larger rate), got {}",
                                     config.peak_to_trough));
  }
  traffic_checks::finite(config.peak_hour, "peak_hour", config.where);
  if (config.peak_hour < 0 || config.peak_hour >= kHoursPerDay) {
    traffic_checks::fail(config.where, "peak_hour",
                         fmt::format("must be in [0, 24), got {}", config.peak_hour));
  }
  validate(config.tokens, config.where);
}

DiurnalSource::DiurnalSource(const DiurnalConfig& config, RngStream rng)
    : mean_rps_(config.mean_rps),
      amplitude_((config.peak_to_trough - 1) / (config.peak_to_trough + 1)),
      peak_offset_us_((config.peak_hour - config.start_hour) * kHourUs),
      rng_(rng),
      tokens_(config.tokens, derive_stream(rng, "tokens")) {
  validate(config);
  ended_ = mean_rps_ == 0;
  for (int bin = 0; bin < kBinsPerDay; ++bin) bins_[bin] = bounds_of(bin);
}

// λ at the bin's ends, and at a peak or trough inside it: a sinusoid is monotone between them.
DiurnalSource::Bounds DiurnalSource::bounds_of(int bin) const {
  constexpr double kBinUs = kDayUs / kBinsPerDay;
  const double start = bin * kBinUs;
  const double end = start + kBinUs;
  double highest = std::max(rate_at_us(start), rate_at_us(end));
  double lowest = std::min(rate_at_us(start), rate_at_us(end));
  // The first peak at or after the bin's start, and the trough half a day from it.
  const double peak =
      start + std::fmod(std::fmod(peak_offset_us_ - start, kDayUs) + kDayUs, kDayUs);
  const double trough = peak - kDayUs / 2 >= start ? peak - kDayUs / 2 : peak + kDayUs / 2;
  if (peak <= end) highest = mean_rps_ * (1 + amplitude_);
  if (trough <= end) lowest = mean_rps_ * (1 - amplitude_);
  return {.highest = highest * (1 + kBoundMargin) / 1e6,
          .lowest = lowest * (1 - kBoundMargin) / 1e6};
}

double DiurnalSource::rate_at_us(double t_us) const {
  const double phase = 2 * std::numbers::pi * (t_us - peak_offset_us_) / kDayUs;
  return mean_rps_ * (1 + amplitude_ * std::cos(phase));
}

double DiurnalSource::rate_at(SimTime t) const {
  return rate_at_us(static_cast<double>(t.time_since_epoch().count()));
}

std::optional<Request> DiurnalSource::next() {
  if (ended_) return std::nullopt;
  if (amplitude_ == 0) {  // a plain Poisson stream, draw for draw
    t_us_ += rng_.exponential(1e6 / mean_rps_);
    if (t_us_ <= traffic_checks::kHorizonUs)
      return tokens_.make(traffic_checks::to_sim_time(t_us_));
    ended_ = true;
    return std::nullopt;
  }
  while (true) {
    if (t_us_ >= bin_end_us_) enter_bin();
    const Bounds& bin = bins_[bin_];
    const double candidate = t_us_ + rng_.standard_exponential() / bin.highest;
    if (candidate >= bin_end_us_) {  // none left in this bin: start over at the next
      t_us_ = bin_end_us_;
      if (t_us_ > traffic_checks::kHorizonUs) break;
      continue;
    }
    t_us_ = candidate;
    if (t_us_ > traffic_checks::kHorizonUs) break;
    const double u = rng_.uniform() * bin.highest;
    if (u < bin.lowest || u * 1e6 < rate_at_us(t_us_)) {
      return tokens_.make(traffic_checks::to_sim_time(t_us_));
    }
  }
  ended_ = true;
  return std::nullopt;
}

void DiurnalSource::enter_bin() {
  constexpr double kBinUs = kDayUs / kBinsPerDay;
  const auto index = static_cast<std::int64_t>(t_us_ / kBinUs);
  bin_ = static_cast<std::size_t>(index % kBinsPerDay);
  bin_end_us_ = static_cast<double>(index + 1) * kBinUs;
}

void DiurnalSource::fast_forward(SimTime t) {
  t_us_ = std::max(t_us_, static_cast<double>(t.time_since_epoch().count()));
}

// ∫λ over [from, until] = mean · (Δ + a · day/2π · (sin φ(until) − sin φ(from))), in seconds.
double DiurnalSource::expected_between(double from_us, double until_us) const {
  const auto phase = [&](double t_us) {
    return 2 * std::numbers::pi * (t_us - peak_offset_us_) / kDayUs;
  };
  const double day_s = kDayUs / 1e6;
  return mean_rps_ *
         ((until_us - from_us) / 1e6 + amplitude_ * day_s / (2 * std::numbers::pi) *
                                           (std::sin(phase(until_us)) - std::sin(phase(from_us))));
}

std::optional<std::uint64_t> DiurnalSource::count_until(SimTime t) {
  const double until = traffic_checks::clamp_to_horizon(t);
  if (ended_ || until <= t_us_) return 0;
  const std::uint64_t n = rng_.poisson(*expected_until(t));
  t_us_ = until;
  return n;
}

std::optional<double> DiurnalSource::expected_until(SimTime t) const {
  const double until = traffic_checks::clamp_to_horizon(t);
  if (ended_ || until <= t_us_) return 0.0;
  return std::max(0.0, expected_between(t_us_, until));
}

}  // namespace fleetsim
