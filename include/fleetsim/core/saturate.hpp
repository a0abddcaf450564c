// Converting user-driven floating-point values to integers without undefined behaviour.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace fleetsim {

// Truncates toward zero as Go's int64(x) does, but saturates where Go's result is unspecified:
// beyond the range (±Inf included) to the nearest limit, NaN to 0.
constexpr std::int64_t saturate_to_int64(double x) {
  if (std::isnan(x)) return 0;
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  if (x >= 9223372036854775808.0) return std::numeric_limits<std::int64_t>::max();
  if (x <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(x);
}

// Rounds half away from zero as std::llround does, inline (llround is a libm call on the serving
// path's hot loop); beyond the int64 range it saturates as saturate_to_int64.
inline std::int64_t round_to_int64(double x) {
  // From 2^52 up every double is an integer; NaN fails the comparison.
  if (!(std::abs(x) < 0x1p52)) return saturate_to_int64(x);
  const auto t = static_cast<std::int64_t>(x);
  const double fraction = x - static_cast<double>(t);  // exact below 2^52
  return t + static_cast<std::int64_t>(fraction >= 0.5) -
         static_cast<std::int64_t>(fraction <= -0.5);
}

// a + b and a × b, saturating at the int64 limits (Go would wrap; C++ must not overflow).
constexpr std::int64_t saturating_add_int64(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}
constexpr std::int64_t saturating_mul_int64(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a < 0) == (b < 0) ? std::numeric_limits<std::int64_t>::max()
                            : std::numeric_limits<std::int64_t>::min();
}

}  // namespace fleetsim
