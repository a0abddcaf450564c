#include "fleetsim/traffic/traffic_mmpp.hpp"

#include <fmt/format.h>

#include <cmath>

#include "traffic_checks.hpp"

namespace fleetsim {

namespace {

// More state switches than this per request on average, and the source would crawl through
// switches to find its requests: a unit mistake in a rate or a sojourn, not burstiness.
constexpr double kMaxSwitchesPerRequest = 1e6;

constexpr std::size_t index_of(MmppState s) { return static_cast<std::size_t>(s); }
constexpr MmppState other(MmppState s) {
  return s == MmppState::Quiet ? MmppState::Burst : MmppState::Quiet;
}

}  // namespace

void validate(const MmppConfig& config) {
  const SourceLocation& where = config.where;
  traffic_checks::rate(config.quiet_rps, "quiet_rps", where);
  traffic_checks::rate(config.burst_rps, "burst_rps", where);
  for (auto [d, field] :
       {std::pair{config.mean_quiet, "mean_quiet"}, std::pair{config.mean_burst, "mean_burst"}}) {
    if (d < kMinMmppSojourn) {
      traffic_checks::fail(where, field,
                           fmt::format("must be at least {}, got {}",
                                       format_duration(kMinMmppSojourn), format_duration(d)));
    }
    traffic_checks::time_offset(d, field, where);
  }
  // Requests per quiet+burst cycle; each cycle is two switches.
  const double per_cycle = config.quiet_rps * to_seconds(config.mean_quiet) +
                           config.burst_rps * to_seconds(config.mean_burst);
  if (per_cycle > 0 && 2 / per_cycle > kMaxSwitchesPerRequest) {
    traffic_checks::fail(
        where, "quiet_rps",
        fmt::format("with burst_rps {} and these sojourns the source averages {:.3g} requests per "
                    "quiet+burst cycle: it would switch state over a million times per request",
                    config.burst_rps, per_cycle));
  }
  validate(config.tokens, where);
}

MmppSource::MmppSource(const MmppConfig& config, RngStream rng)
    : mean_gap_us_{config.quiet_rps > 0 ? 1e6 / config.quiet_rps : 0,
                   config.burst_rps > 0 ? 1e6 / config.burst_rps : 0},
      mean_sojourn_us_{static_cast<double>(config.mean_quiet.count()),
                       static_cast<double>(config.mean_burst.count())},
      long_run_rps_(0),
      state_(MmppState::Quiet),
      switch_at_us_(0),
      rng_(rng),
      tokens_(config.tokens, derive_stream(rng, "tokens")) {
  validate(config);
  const double total = mean_sojourn_us_[0] + mean_sojourn_us_[1];
  long_run_rps_ =
      (config.quiet_rps * mean_sojourn_us_[0] + config.burst_rps * mean_sojourn_us_[1]) / total;
  ended_ = long_run_rps_ == 0;
  switch (config.start) {
    case MmppStart::Quiet:
      state_ = MmppState::Quiet;
      break;
    case MmppStart::Burst:
      state_ = MmppState::Burst;
      break;
    case MmppStart::Stationary:
      // The long-run share of time in the burst state.
      state_ = rng_.uniform() < mean_sojourn_us_[1] / total ? MmppState::Burst : MmppState::Quiet;
      break;
  }
  // Sojourns are exponential, so the residual time of a stationary start is exponential too.
  switch_at_us_ = rng_.exponential(mean_sojourn_us_[index_of(state_)]);
}

std::optional<Request> MmppSource::next() {
  if (ended_) return std::nullopt;
  while (true) {
    const double gap = mean_gap_us_[index_of(state_)];
    if (gap > 0) {
      const double candidate = t_us_ + rng_.exponential(gap);
      if (candidate < switch_at_us_) {
        t_us_ = candidate;
        break;
      }
    }
    // No arrival before the state ends: move to the switch and draw afresh (memorylessness).
    t_us_ = switch_at_us_;
    state_ = other(state_);
    switch_at_us_ = t_us_ + rng_.exponential(mean_sojourn_us_[index_of(state_)]);
    if (t_us_ > traffic_checks::kHorizonUs) break;
  }
  if (t_us_ > traffic_checks::kHorizonUs) {
    ended_ = true;
    return std::nullopt;
  }
  return tokens_.make(traffic_checks::to_sim_time(t_us_));
}

}  // namespace fleetsim

namespace fleetsim {

void MmppSource::fast_forward(SimTime t) {
  const auto t_us = static_cast<double>(t.time_since_epoch().count());
  if (ended_ || t_us <= t_us_) return;
  if (t_us < switch_at_us_) {  // still in the current state; its residual sojourn stands
    t_us_ = t_us;
    return;
  }
  // The chain enters the other state at switch_at_us_; where is it Δ later?
  const MmppState entered = other(state_);
  const double delta = t_us - switch_at_us_;
  const double leave_quiet = 1 / mean_sojourn_us_[index_of(MmppState::Quiet)];
  const double leave_burst = 1 / mean_sojourn_us_[index_of(MmppState::Burst)];
  const double burst_share = leave_quiet / (leave_quiet + leave_burst);
  const double from = entered == MmppState::Burst ? 1.0 : 0.0;
  const double p_burst =
      burst_share + (from - burst_share) * std::exp(-(leave_quiet + leave_burst) * delta);
  state_ = rng_.uniform() < p_burst ? MmppState::Burst : MmppState::Quiet;
  t_us_ = t_us;
  switch_at_us_ = t_us_ + rng_.exponential(mean_sojourn_us_[index_of(state_)]);
}

}  // namespace fleetsim
