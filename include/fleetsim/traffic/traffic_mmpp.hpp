// Bursty traffic: a two-state Markov-modulated Poisson process (quiet and burst states).
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

enum class MmppState : std::uint8_t { Quiet, Burst };
// The state alternates quiet → burst → quiet …, each sojourn exponential with its mean; within a
// state, arrivals are Poisson at that state's rate. Sampled exactly: a candidate arrival that
// falls past the state's end is dropped and drawn afresh in the next state (memorylessness).
// The long-run rate is (quiet_rps·mean_quiet + burst_rps·mean_burst) / (mean_quiet + mean_burst).
class MmppSource final : public TrafficSource {
 public:
  MmppSource(const MmppConfig& config, RngStream rng);

  std::optional<Request> next() override;
  // Exact, by the Markov property: the state at t is drawn from the chain's transition
  // probabilities, p_burst(Δ) = π_b + (p_burst(0) − π_b)·e^(−Δ/mean_quiet − Δ/mean_burst), and
  // its remaining sojourn is exponential again.
  void fast_forward(SimTime t) override;

  // The current state: at the last arrival returned, or where fast_forward left it (at t = 0
  // before either).
  MmppState state() const { return state_; }
  // The long-run mean rate, requests per second.
  double long_run_rps() const { return long_run_rps_; }

 private:
  double mean_gap_us_[2];  // 1e6 / rate per state; 0 when the rate is 0
  double mean_sojourn_us_[2];
  double long_run_rps_;
  MmppState state_;
  double t_us_ = 0;
  double switch_at_us_;  // when the current state ends
  RngStream rng_;
  TokenSampler tokens_;
  bool ended_ = false;
};

}  // namespace fleetsim
