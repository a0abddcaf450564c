// Bursty traffic: a two-state Markov-modulated Poisson process (quiet and burst states).
#pragma once

#include <cstdint>
#include <optional>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// A mean sojourn under a millisecond is finer than any metrics window can see, and most likely
// microseconds written for milliseconds.
inline constexpr SimDuration kMinMmppSojourn = millis(1);

enum class MmppState : std::uint8_t { Quiet, Burst };
// Stationary: draw the first state with its long-run probability, so the process is stationary
// from t = 0.
enum class MmppStart : std::uint8_t { Stationary, Quiet, Burst };

struct MmppConfig {
  double quiet_rps = 0;      // Poisson rate while quiet (0 allowed: on/off traffic)
  double burst_rps = 0;      // Poisson rate while bursting
  SimDuration mean_quiet{};  // mean time in the quiet state (exponentially distributed), > 0
  SimDuration mean_burst{};  // mean time in the burst state, > 0
  MmppStart start = MmppStart::Stationary;
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: negative, non-finite or absurd rates; sojourns under
// kMinMmppSojourn; rates so low against the sojourns that the source would switch state more
// than a million times per request (it would crawl); bad tokens.
void validate(const MmppConfig& config);

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
