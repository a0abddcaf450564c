#include "fleetsim/workload/scale_down_order.hpp"

#include <algorithm>
#include <bit>

namespace fleetsim {

namespace {

// controller_utils.go logarithmicRankDiff: floor(log2) of the nanoseconds since t, −1 for a time
// at or after now. API timestamps have whole-second precision.
int log_rank(SimTime t, SimTime now) {
  using std::chrono::floor;
  const std::int64_t s =
      (floor<std::chrono::seconds>(now) - floor<std::chrono::seconds>(t)).count();
  if (s <= 0) return -1;
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(s) * 1'000'000'000ULL)) - 1;
}

}  // namespace

void sort_for_scale_down(std::span<ScaleDownCandidate> pods, SimTime now) {
  std::stable_sort(pods.begin(), pods.end(),
                   [now](const ScaleDownCandidate& a, const ScaleDownCandidate& b) {
                     if (a.assigned != b.assigned) return !a.assigned;
                     if (a.running != b.running) return !a.running;
                     if (a.ready != b.ready) return !a.ready;
                     if (a.colocated != b.colocated) return a.colocated > b.colocated;
                     if (a.ready && b.ready && a.ready_since != b.ready_since) {
                       const int diff = log_rank(a.ready_since, now) - log_rank(b.ready_since, now);
                       if (diff != 0) return diff < 0;
                       return a.uid < b.uid;
                     }
                     if (a.created != b.created) {
                       const int diff = log_rank(a.created, now) - log_rank(b.created, now);
                       if (diff != 0) return diff < 0;
                       return a.uid < b.uid;
                     }
                     return a.uid < b.uid;
                   });
}

}  // namespace fleetsim
