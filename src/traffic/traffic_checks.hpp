// Checks the traffic configs share, throwing ConfigError with the config's location.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/saturate.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim::traffic_checks {

[[noreturn]] inline void fail(const SourceLocation& where, std::string_view field,
                              const std::string& message) {
  throw ConfigError(where, std::string(field), message);
}

inline void finite(double v, std::string_view field, const SourceLocation& where) {
  if (!std::isfinite(v)) fail(where, field, fmt::format("must be a finite number, got {}", v));
}

// Requests per second: finite, ≥ 0, ≤ kMaxTrafficRps.
inline void rate(double rps, std::string_view field, const SourceLocation& where) {
  finite(rps, field, where);
  if (rps < 0) fail(where, field, fmt::format("must not be negative, got {}", rps));
  if (rps > kMaxTrafficRps) {
    fail(where, field,
         fmt::format("must be at most {} requests per second, got {}", kMaxTrafficRps, rps));
  }
}

// A finite number within [lo, hi].
inline void within(double v, double lo, double hi, std::string_view field,
                   const SourceLocation& where) {
  finite(v, field, where);
  if (v < lo || v > hi) {
    fail(where, field, fmt::format("must be between {} and {}, got {}", lo, hi, v));
  }
}

inline void not_negative(SimDuration d, std::string_view field, const SourceLocation& where) {
  if (d < SimDuration::zero()) {
    fail(where, field, fmt::format("must not be negative, got -{}", format_duration(-d)));
  }
}

// A duration that, added to simulated time, stays within kTrafficHorizon.
inline void time_offset(SimDuration d, std::string_view field, const SourceLocation& where) {
  not_negative(d, field, where);
  if (d > kTrafficHorizon.time_since_epoch()) {
    fail(where, field, fmt::format("must be at most 100 years, got {}", format_duration(d)));
  }
}

// Rounds a non-negative time in double microseconds to the clock.
inline SimTime to_sim_time(double t_us) { return SimTime{micros(round_to_int64(t_us))}; }

inline constexpr double kHorizonUs =
    static_cast<double>(kTrafficHorizon.time_since_epoch().count());

// A time in double microseconds, no later than the horizon: where count_until stops.
inline double clamp_to_horizon(SimTime t) {
  return std::min(static_cast<double>(t.time_since_epoch().count()), kHorizonUs);
}

}  // namespace fleetsim::traffic_checks
