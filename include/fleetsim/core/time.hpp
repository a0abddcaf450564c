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

// Explicit conversions to floating point, for output and rate arithmetic only.
constexpr double to_seconds(SimDuration d) { return static_cast<double>(d.count()) / 1e6; }
constexpr double to_seconds(SimTime t) { return to_seconds(t.time_since_epoch()); }
constexpr double to_hours(SimDuration d) { return to_seconds(d) / 3600.0; }

// Rounds a real number of seconds to the nearest microsecond.
SimDuration from_seconds(double s);

// Parses Go/Kubernetes durations: "90s", "5m", "1h30m", "500ms", "1.5h", "0". Plain numbers
// are not accepted (ambiguous units); nullopt on anything malformed or negative.
std::optional<SimDuration> parse_duration(std::string_view text);

// Formats as Go does ("1h30m0s", "500ms"), for messages.
std::string format_duration(SimDuration d);

}  // namespace fleetsim
