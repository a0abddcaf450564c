#include "fleetsim/traffic/traffic_poisson.hpp"

#include <algorithm>

#include "traffic_checks.hpp"

namespace fleetsim {

void validate(const PoissonConfig& config) {
  traffic_checks::rate(config.rps, "rps", config.where);
  validate(config.tokens, config.where);
}

PoissonSource::PoissonSource(const PoissonConfig& config, RngStream rng)
    : mean_gap_us_(config.rps > 0 ? 1e6 / config.rps : 0),
      rng_(rng),
      tokens_(config.tokens, derive_stream(rng, "tokens")) {
  validate(config);
  ended_ = config.rps == 0;
}

std::optional<Request> PoissonSource::next() {
  if (ended_) return std::nullopt;
  t_us_ += rng_.exponential(mean_gap_us_);
  if (t_us_ > traffic_checks::kHorizonUs) {
    ended_ = true;
    return std::nullopt;
  }
  return tokens_.make(traffic_checks::to_sim_time(t_us_));
}

void PoissonSource::fast_forward(SimTime t) {
  t_us_ = std::max(t_us_, static_cast<double>(t.time_since_epoch().count()));
}

std::optional<std::uint64_t> PoissonSource::count_until(SimTime t) {
  const double until = traffic_checks::clamp_to_horizon(t);
  if (ended_ || until <= t_us_) return 0;
  const std::uint64_t n = rng_.poisson(*expected_until(t));
  t_us_ = until;
  return n;
}

std::optional<double> PoissonSource::expected_until(SimTime t) const {
  const double until = traffic_checks::clamp_to_horizon(t);
  if (ended_ || until <= t_us_) return 0.0;
  return (until - t_us_) / mean_gap_us_;
}

}  // namespace fleetsim
