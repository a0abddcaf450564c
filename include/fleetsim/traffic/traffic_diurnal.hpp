// Diurnal traffic: a Poisson process whose rate follows a 24-hour sinusoid.
#pragma once

#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// Chosen, not measured: interactive traffic peaks in the early afternoon of its users' day. Set
// peak_hour from your own traffic.
inline constexpr double kDefaultPeakHour = 14.0;

struct DiurnalConfig {
  double mean_rps = 0;        // the rate averaged over a day; 0: no requests
  double peak_to_trough = 1;  // the peak rate over the trough rate; ≥ 1 (1: plain Poisson)
  double peak_hour = kDefaultPeakHour;  // the UTC hour of the peak, in [0, 24)
  double start_hour = 0;  // the UTC hour of day at t = 0 (the scenario's start), in [0, 24)
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: a negative, non-finite or absurd mean rate, a
// peak_to_trough below 1 or not finite, a peak_hour outside [0, 24), or bad tokens.
void validate(const DiurnalConfig& config);

// A non-homogeneous Poisson process with rate
//   λ(t) = mean_rps · (1 + a · cos(2π (h(t) − peak_hour) / 24)),  a = (R − 1) / (R + 1),
// where h(t) is the hour of the simulated day and R is peak_to_trough. So λ peaks at
// mean·(1 + a) at peak_hour, bottoms at mean·(1 − a) twelve hours later, their ratio is R, and
// the daily mean is mean_rps.
//
// Sampled exactly by thinning (Lewis and Shedler, 1979): candidates come from a homogeneous
// Poisson process at λmax = mean·(1 + a), and each is kept with probability λ(t) / λmax. At
// least half the candidates are kept (a < 1), so the cost per request is bounded.
class DiurnalSource final : public TrafficSource {
 public:
  DiurnalSource(const DiurnalConfig& config, RngStream rng);

  std::optional<Request> next() override;
  // Exact: the process after t does not depend on its past.
  void fast_forward(SimTime t) override;

  // λ(t) in requests per second.
  double rate_at(SimTime t) const;
  double amplitude() const { return amplitude_; }

 private:
  double rate_at_us(double t_us) const;

  double mean_rps_;
  double amplitude_;       // a
  double peak_offset_us_;  // the peak's first time after t = 0, in microseconds
  double max_gap_us_;      // 1e6 / λmax
  double t_us_ = 0;
  RngStream rng_;
  TokenSampler tokens_;
  bool ended_ = false;
};

}  // namespace fleetsim
