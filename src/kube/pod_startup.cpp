#include "fleetsim/kube/pod_startup.hpp"

#include <algorithm>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

NodeImageStore::NodeImageStore(std::int64_t bytes_per_second)
    : bytes_per_second_(bytes_per_second) {
  FLEETSIM_ASSERT(bytes_per_second > 0);
}

SimTime NodeImageStore::available_at(const std::string& image, std::int64_t bytes, SimTime now) {
  if (image.empty() || bytes <= 0) return now;
  auto it = images_.find(image);
  if (it != images_.end()) return std::max(it->second, now);
  // Whole seconds, then the remainder in microseconds rounded up (no overflow for any size).
  const std::int64_t whole = bytes / bytes_per_second_;
  const std::int64_t rest = bytes % bytes_per_second_;
  const SimDuration pull = saturating_mul(seconds(1), whole) +
                           micros((rest * 1'000'000 + bytes_per_second_ - 1) / bytes_per_second_);
  const SimTime done = saturating_add(std::max(now, puller_free_at_), pull);
  puller_free_at_ = done;
  images_.emplace(image, done);
  return done;
}

namespace {

// The first probe time on the grid origin + k × period that is at or after `not_before`.
SimTime first_probe_at_or_after(SimTime origin, SimDuration period, SimTime not_before) {
  if (not_before <= origin) return origin;
  if (not_before == kNever) return kNever;
  const std::int64_t gap = (not_before - origin).count();
  const std::int64_t k = gap / period.count() + (gap % period.count() != 0 ? 1 : 0);
  return saturating_add(origin, saturating_mul(period, k));
}

}  // namespace

SimTime pod_ready_time(SimTime probe_origin, SimTime containers_started, SimTime server_up,
                       const std::optional<ProbeTiming>& startup_probe,
                       const std::optional<ProbeTiming>& readiness_probe) {
  SimTime started_ok = std::max(containers_started, server_up);
  if (startup_probe) {
    started_ok = first_probe_at_or_after(
        probe_origin, startup_probe->period,
        std::max(saturating_add(containers_started, startup_probe->initial_delay), server_up));
  }
  if (!readiness_probe) return started_ok;
  const SimTime first_pass = first_probe_at_or_after(
      probe_origin, readiness_probe->period,
      std::max({saturating_add(containers_started, readiness_probe->initial_delay), server_up,
                started_ok}));
  return saturating_add(
      first_pass, saturating_mul(readiness_probe->period, readiness_probe->success_threshold - 1));
}

}  // namespace fleetsim
