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
      max_gap_us_(0),
      rng_(rng),
      tokens_(config.tokens, derive_stream(rng, "tokens")) {
  validate(config);
  ended_ = mean_rps_ == 0;
  if (!ended_) max_gap_us_ = 1e6 / (mean_rps_ * (1 + amplitude_));
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
  const double max_rps = mean_rps_ * (1 + amplitude_);
  while (true) {
    t_us_ += rng_.exponential(max_gap_us_);
    if (t_us_ > traffic_checks::kHorizonUs) {
      ended_ = true;
      return std::nullopt;
    }
    // With a = 0 every candidate is kept; skipping the draw keeps it a plain Poisson stream.
    if (amplitude_ == 0 || rng_.uniform() * max_rps < rate_at_us(t_us_)) break;
  }
  return tokens_.make(traffic_checks::to_sim_time(t_us_));
}

void DiurnalSource::fast_forward(SimTime t) {
  t_us_ = std::max(t_us_, static_cast<double>(t.time_since_epoch().count()));
}

}  // namespace fleetsim
