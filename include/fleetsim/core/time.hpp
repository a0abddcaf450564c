// Simulated time: integer microseconds, a strong type distinct from wall-clock time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleetsim {

using SimDuration = std::chrono::duration<std::int64_t, std::micro>;

// A tag clock: SimTime points never mix with std::chrono's real clocks.
struct SimClock {
  using duration = SimDuration;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<SimClock, SimDuration>;
  static constexpr bool is_steady = true;
};

using SimTime = SimClock::time_point;

constexpr SimDuration micros(std::int64_t n) { return SimDuration{n}; }
constexpr SimDuration millis(std::int64_t n) { return SimDuration{n * 1'000}; }
constexpr SimDuration seconds(std::int64_t n) { return SimDuration{n * 1'000'000}; }
constexpr SimDuration minutes(std::int64_t n) { return seconds(n * 60); }
constexpr SimDuration hours(std::int64_t n) { return seconds(n * 3600); }

constexpr SimTime kSimStart{};
constexpr SimTime at(SimDuration since_start) { return SimTime{since_start}; }

// "Never": the latest instant. Sums and products of user-given durations saturate here instead
// of wrapping, and an event at kNever never runs: a time past the end of the run is simply never.
inline constexpr SimTime kNever = SimTime::max();
inline constexpr SimDuration kForever = SimDuration::max();

// t + d for d ≥ 0, saturating at kNever.
constexpr SimTime saturating_add(SimTime t, SimDuration d) {
  return d >= kNever - t ? kNever : t + d;
}
// d × n for d, n ≥ 0, saturating at kForever.
constexpr SimDuration saturating_mul(SimDuration d, std::int64_t n) {
  if (n == 0 || d.count() == 0) return SimDuration::zero();
  return d.count() > kForever.count() / n ? kForever : d * n;
}

// Explicit conversions to floating point, for output and rate arithmetic only.
inline constexpr double kSecondsPerHour = 3600.0;
constexpr double to_seconds(SimDuration d) { return static_cast<double>(d.count()) / 1e6; }
constexpr double to_seconds(SimTime t) { return to_seconds(t.time_since_epoch()); }
constexpr double to_hours(SimDuration d) { return to_seconds(d) / kSecondsPerHour; }

// Rounds a real number of seconds to the nearest microsecond, saturating at ±kForever (NaN: 0).
// Inline where every double is exact in microseconds (below 2^52): the serving path converts a
// few times a request.
SimDuration from_seconds_in_full(double s);
inline SimDuration from_seconds(double s) {
  const double us = s * 1e6;
  if (!(__builtin_fabs(us) < 0x1p52)) return from_seconds_in_full(s);  // NaN too
  const auto t = static_cast<std::int64_t>(us);
  const double fraction = us - static_cast<double>(t);  // exact below 2^52
  return SimDuration{t + static_cast<std::int64_t>(fraction >= 0.5) -
                     static_cast<std::int64_t>(fraction <= -0.5)};  // half away from zero
}

// Parses Go/Kubernetes durations: "90s", "5m", "1h30m", "500ms", "1.5h", "0". Plain numbers
// are not accepted (ambiguous units); nullopt on anything malformed or negative.
std::optional<SimDuration> parse_duration(std::string_view text);

// Formats as Go does ("1h30m0s", "500ms"), for messages.
std::string format_duration(SimDuration d);

}  // namespace fleetsim
