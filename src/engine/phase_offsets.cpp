#include "fleetsim/engine/phase_offsets.hpp"

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

struct Names {
  std::string_view key;
  std::string_view stream;
};

constexpr std::array<Names, kPeriodicControllers> kNames{{
    {"hpa", "phase/hpa"},
    {"keda", "phase/keda"},
    {"scrape", "phase/scrape"},
    {"cluster_autoscaler", "phase/cluster-autoscaler"},
    {"karpenter_disruption", "phase/karpenter-disruption"},
    {"auto_scaling_groups", "phase/auto-scaling-groups"},
}};

}  // namespace

std::string_view phase_key(PeriodicController c) { return kNames[static_cast<std::size_t>(c)].key; }

std::string_view phase_stream(PeriodicController c) {
  return kNames[static_cast<std::size_t>(c)].stream;
}

SimDuration draw_phase_offset(RngStream& rng, SimDuration period) {
  FLEETSIM_ASSERT(period > SimDuration{0});
  const SimDuration unit = period >= millis(1) ? millis(1) : micros(1);
  const auto steps = static_cast<std::uint64_t>(period / unit);
  return unit * static_cast<std::int64_t>(rng.below(steps));
}

PhaseOffsets::PhaseOffsets(const PhaseOffsetSettings& settings, std::uint64_t seed)
    : settings_(settings), seed_(seed) {}

SimDuration PhaseOffsets::next(PeriodicController c, SimDuration period) {
  if (const auto& fixed = settings_.fixed_for(c)) return *fixed;
  if (!settings_.seeded) return SimDuration{0};
  auto& stream = streams_[static_cast<std::size_t>(c)];
  if (!stream) stream.emplace(seed_, phase_stream(c));
  return draw_phase_offset(*stream, period);
}

}  // namespace fleetsim
