// Periodic controllers out of lockstep: each periodic series starts at an offset within its
// period, drawn from a seeded stream per controller kind, so an autoscaler's sync reads a scrape
// as stale as the gap between the two loops' phases makes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// The periodic series whose phase a scenario sets (`phase_offsets:`).
enum class PeriodicController : std::uint8_t {
  Hpa,                  // kube-controller-manager's one HPA loop: every HPA, KEDA's HPAs too
  Keda,                 // each ScaledObject's polling loop, on its own phase
  Scrape,               // Prometheus' scrape of the pods and the gateway's series
  ClusterAutoscaler,    // the Cluster Autoscaler's RunOnce loop
  KarpenterDisruption,  // Karpenter's disruption controller poll
  AutoScalingGroups,    // EC2 Auto Scaling replacing lost instances
};
inline constexpr std::size_t kPeriodicControllers = 6;

// Its scenario key under `phase_offsets` (hpa, keda, scrape, cluster_autoscaler,
// karpenter_disruption, auto_scaling_groups).
std::string_view phase_key(PeriodicController c);
// The RNG stream its seeded offsets come from: "phase/hpa", "phase/keda", "phase/scrape",
// "phase/cluster-autoscaler", "phase/karpenter-disruption", "phase/auto-scaling-groups".
std::string_view phase_stream(PeriodicController c);

struct PhaseOffsetSettings {
  bool seeded = true;  // false (`zero`): every series at offset 0, in lockstep from the start
  // A controller's fixed offset instead of a drawn one (`phase_offsets: {hpa: 2s}`); the
  // scenario loader holds it below the controller's period.
  std::array<std::optional<SimDuration>, kPeriodicControllers> fixed{};

  const std::optional<SimDuration>& fixed_for(PeriodicController c) const {
    return fixed[static_cast<std::size_t>(c)];
  }
};

// Hands out each series' offset: the fixed one, 0 under `zero`, else uniform in [0, period) in
// whole milliseconds (microseconds below a 1 ms period) from the controller kind's stream, one
// draw per series in the order asked.
class PhaseOffsets {
 public:
  PhaseOffsets(const PhaseOffsetSettings& settings, std::uint64_t seed);
  SimDuration next(PeriodicController c, SimDuration period);

 private:
  PhaseOffsetSettings settings_;
  std::uint64_t seed_;
  std::array<std::optional<RngStream>, kPeriodicControllers> streams_;
};

// Uniform in [0, period) as above; period > 0.
SimDuration draw_phase_offset(RngStream& rng, SimDuration period);

// The first firing of a loop that acts as it starts (the HPA, KEDA, the scrape): start + offset.
constexpr SimTime first_firing_at_start(SimTime start, SimDuration offset) {
  return start + offset;
}
// The first firing of a loop that waits a period before its first pass (the Cluster
// Autoscaler, the disruption controller, Auto Scaling): the first point of its grid after
// start, so start + period at offset 0, as in lockstep.
constexpr SimTime first_firing_after_start(SimTime start, SimDuration period, SimDuration offset) {
  return offset > SimDuration{0} ? start + offset : start + period;
}

}  // namespace fleetsim
