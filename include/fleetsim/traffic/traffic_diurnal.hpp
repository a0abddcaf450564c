// Diurnal traffic: a Poisson process whose rate follows a 24-hour sinusoid.
#pragma once

#include <array>
#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// A non-homogeneous Poisson process with rate
//   λ(t) = mean_rps · (1 + a · cos(2π (h(t) − peak_hour) / 24)),  a = (R − 1) / (R + 1),
// where h(t) is the hour of the simulated day and R is peak_to_trough. So λ peaks at
// mean·(1 + a) at peak_hour, bottoms at mean·(1 − a) twelve hours later, their ratio is R, and
// the daily mean is mean_rps.
//
// Sampled exactly by thinning (Lewis and Shedler, 1979) against a piecewise-constant bound: in
// each minute of the day, candidates come from a homogeneous Poisson process at that minute's
// highest rate, and each is kept with probability λ(t) / highest. A squeeze keeps a candidate
// below the minute's lowest rate without evaluating λ(t): over one minute the sinusoid moves by
// at most 2πa/1440 of its mean, so about 99.5% of candidates cost one exponential and one
// uniform draw, no cos, and fewer than 1% are rejected. A candidate gap that crosses into the
// next minute is discarded and drawn again from the minute's start, which the process's lack
// of memory makes exact.
class DiurnalSource final : public TrafficSource {
 public:
  DiurnalSource(const DiurnalConfig& config, RngStream rng);

  std::optional<Request> next() override;
  // Exact: the process after t does not depend on its past.
  void fast_forward(SimTime t) override;
  std::optional<std::uint64_t> count_until(SimTime t) override;
  std::optional<double> expected_until(SimTime t) const override;

  // λ(t) in requests per second.
  double rate_at(SimTime t) const;
  double amplitude() const { return amplitude_; }

 private:
  static constexpr int kBinsPerDay = 1440;
  // The bounds of λ over one bin of the day, in requests per microsecond.
  struct Bounds {
    double highest;
    double lowest;
  };

  double rate_at_us(double t_us) const;
  // The expected arrivals between the two times (microseconds): ∫λ.
  double expected_between(double from_us, double until_us) const;
  Bounds bounds_of(int bin) const;
  // Points bin_ and bin_end_us_ at the bin holding t_us_.
  void enter_bin();

  double mean_rps_;
  double amplitude_;       // a
  double peak_offset_us_;  // the peak's first time after t = 0, in microseconds
  std::array<Bounds, kBinsPerDay> bins_{};
  std::size_t bin_ = 0;
  double bin_end_us_ = 0;  // t_us_ at or beyond it: bin_ is stale
  double t_us_ = 0;
  RngStream rng_;
  TokenSampler tokens_;
  bool ended_ = false;
};

}  // namespace fleetsim
