#include "fleetsim/core/saturate.hpp"

#include <catch2/catch.hpp>
#include <limits>

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
