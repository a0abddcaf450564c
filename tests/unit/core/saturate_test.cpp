#include "fleetsim/core/saturate.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "fleetsim/core/rng.hpp"

using namespace fleetsim;

TEST_CASE("doubles become int64 as Go truncates them, saturating where Go is unspecified",
          "[core]") {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  CHECK(saturate_to_int64(2.9) == 2);
  CHECK(saturate_to_int64(-2.9) == -2);
  CHECK(saturate_to_int64(1e19) == kMax);
  CHECK(saturate_to_int64(-1e19) == kMin);
  CHECK(saturate_to_int64(std::numeric_limits<double>::infinity()) == kMax);
  CHECK(saturate_to_int64(-std::numeric_limits<double>::infinity()) == kMin);
  CHECK(saturate_to_int64(std::numeric_limits<double>::quiet_NaN()) == 0);
  CHECK(saturate_to_int64(9223372036854774784.0) == 9223372036854774784);  // the largest below 2^63
}

TEST_CASE("round_to_int64 rounds as std::llround, halves away from zero", "[core]") {
  const double cases[] = {0.0,
                          0.5,
                          -0.5,
                          1.5,
                          2.5,
                          -2.5,
                          0.49999999999999994,
                          -0.49999999999999994,
                          4503599627370495.5,
                          4503599627370496.0,
                          1e15 + 0.5,
                          123456.499999,
                          9e18};
  for (double x : cases) CHECK(round_to_int64(x) == std::llround(x));
  RngStream rng(1, "round");
  for (int i = 0; i < 100'000; ++i) {
    const double x = (rng.uniform() - 0.5) * std::ldexp(1.0, static_cast<int>(rng.below(60)));
    CHECK(round_to_int64(x) == std::llround(x));
  }
  CHECK(round_to_int64(1e19) == std::numeric_limits<std::int64_t>::max());
  CHECK(round_to_int64(std::numeric_limits<double>::quiet_NaN()) == 0);
}
