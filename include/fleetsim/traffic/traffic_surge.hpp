// Surge traffic: a base pattern whose rate is multiplied by a factor for a while, with ramps.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "fleetsim/traffic/traffic_constant.hpp"
#include "fleetsim/traffic/traffic_diurnal.hpp"
#include "fleetsim/traffic/traffic_mmpp.hpp"
#include "fleetsim/traffic/traffic_poisson.hpp"
#include "fleetsim/traffic/traffic_replay.hpp"
#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// Validates and builds a source for a base pattern (a ReplaySource reads its trace through).
std::unique_ptr<TrafficSource> make_base_traffic_source(const BaseTrafficConfig& config,
                                                        RngStream rng);

// Runs k = max(1, ⌈max f⌉) independent copies of the base pattern, merged in time order, and
// keeps an arrival of copy j (0-based) at time t with probability clamp(f(t) − j, 0, 1). The
// kept rate is therefore Σ_j clamp(f(t) − j, 0, 1) · λ(t) = f(t) · λ(t) exactly for every base
// whose copies are independent Poisson processes given their rate (Poisson, diurnal, MMPP).
//
// Copy 0 is the base itself, built from the same stream and never thinned while f ≥ 1: outside
// a surge, and inside one, it yields exactly the requests the base alone would. Copies j ≥ 1
// start at the surge and stop at its end. Consequences for deterministic bases:
//   constant  copy j is phase-shifted by j/k of the spacing, so at an integer factor the surge is
//             again a constant lattice, k times as dense; ramps and fractional parts thin it.
//   replay    the copies are the same trace, so a surge duplicates rows (like rate_scale).
class SurgeSource final : public TrafficSource {
 public:
  SurgeSource(const SurgeConfig& config, RngStream rng);

  std::optional<Request> next() override;
  void fast_forward(SimTime t) override;

  // f(t).
  double factor_at(SimTime t) const;
  std::size_t copies() const { return copies_.size(); }

 private:
  struct Copy {
    std::unique_ptr<TrafficSource> source;
    std::optional<Request> head;  // its next arrival; empty once it has ended
  };
  void refill(std::size_t j);

  double factor_;
  SimTime start_, full_, fall_, end_;  // ramp up begins, full factor, ramp down begins, f = 1
  std::vector<Copy> copies_;
  RngStream thinning_;
};

}  // namespace fleetsim
