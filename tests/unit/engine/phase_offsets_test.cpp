// Periodic controllers out of lockstep: each series' phase, from its kind's seeded stream.
#include "fleetsim/engine/phase_offsets.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

TEST_CASE("a phase offset is whole milliseconds below the period from the kind's stream",
          "[engine]") {
  PhaseOffsets draws(PhaseOffsetSettings{}, 1);
  RngStream hpa(1, "phase/hpa");
  RngStream scrape(1, "phase/scrape");
  const SimDuration h = draws.next(PeriodicController::Hpa, seconds(15));
  CHECK(h == millis(static_cast<std::int64_t>(hpa.below(15'000))));
  const SimDuration s = draws.next(PeriodicController::Scrape, seconds(15));
  CHECK(s == millis(static_cast<std::int64_t>(scrape.below(15'000))));
  // Two kinds at one seed and period: their own streams, so not in lockstep.
  CHECK(h != s);
  CHECK(h >= SimDuration{0});
  CHECK(h < seconds(15));
  CHECK(h % millis(1) == SimDuration{0});
}

TEST_CASE("phase offsets are the same for the same seed and move with it", "[engine]") {
  auto offsets = [](std::uint64_t seed) {
    PhaseOffsets draws(PhaseOffsetSettings{}, seed);
    std::vector<SimDuration> out;
    for (int i = 0; i < 3; ++i) out.push_back(draws.next(PeriodicController::Keda, seconds(30)));
    out.push_back(draws.next(PeriodicController::ClusterAutoscaler, seconds(10)));
    return out;
  };
  CHECK(offsets(7) == offsets(7));
  CHECK(offsets(7) != offsets(8));
  // One draw per series, in order: each ScaledObject its own phase.
  const std::vector<SimDuration> seven = offsets(7);
  RngStream keda(7, "phase/keda");
  for (int i = 0; i < 3; ++i)
    CHECK(seven[static_cast<std::size_t>(i)] ==
          millis(static_cast<std::int64_t>(keda.below(30'000))));
  RngStream ca(7, "phase/cluster-autoscaler");
  CHECK(seven[3] == millis(static_cast<std::int64_t>(ca.below(10'000))));
}

TEST_CASE("zero phase offsets put every series in lockstep and fixed ones win", "[engine]") {
  PhaseOffsetSettings zero{.seeded = false};
  PhaseOffsets lockstep(zero, 1);
  CHECK(lockstep.next(PeriodicController::Hpa, seconds(15)) == SimDuration{0});
  CHECK(lockstep.next(PeriodicController::Scrape, seconds(15)) == SimDuration{0});

  PhaseOffsetSettings fixed;
  fixed.fixed[static_cast<std::size_t>(PeriodicController::Scrape)] = seconds(7);
  PhaseOffsets draws(fixed, 1);
  CHECK(draws.next(PeriodicController::Scrape, seconds(15)) == seconds(7));
  CHECK(draws.next(PeriodicController::Scrape, seconds(15)) == seconds(7));
  // The other kinds still draw from their streams.
  RngStream hpa(1, "phase/hpa");
  CHECK(draws.next(PeriodicController::Hpa, seconds(15)) ==
        millis(static_cast<std::int64_t>(hpa.below(15'000))));
}

TEST_CASE("a period under a millisecond draws its phase in microseconds", "[engine]") {
  RngStream a(3, "phase/scrape");
  RngStream b(3, "phase/scrape");
  CHECK(draw_phase_offset(a, micros(500)) == micros(static_cast<std::int64_t>(b.below(500))));
}

TEST_CASE("a loop that waits a period first fires at its offset or after one period", "[engine]") {
  CHECK(first_firing_at_start(kSimStart, seconds(0)) == kSimStart);
  CHECK(first_firing_at_start(kSimStart, seconds(4)) == kSimStart + seconds(4));
  // Offset 0 is the lockstep timing: the first pass one period in.
  CHECK(first_firing_after_start(kSimStart, seconds(10), seconds(0)) == kSimStart + seconds(10));
  CHECK(first_firing_after_start(kSimStart, seconds(10), millis(3250)) == kSimStart + millis(3250));
}

TEST_CASE("each periodic controller has a scenario key and a stream", "[engine]") {
  CHECK(phase_key(PeriodicController::Hpa) == "hpa");
  CHECK(phase_key(PeriodicController::KarpenterDisruption) == "karpenter_disruption");
  CHECK(phase_key(PeriodicController::AutoScalingGroups) == "auto_scaling_groups");
  CHECK(phase_stream(PeriodicController::ClusterAutoscaler) == "phase/cluster-autoscaler");
  CHECK(phase_stream(PeriodicController::KarpenterDisruption) == "phase/karpenter-disruption");
}
