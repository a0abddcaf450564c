#include "fleetsim/core/time.hpp"

#include <catch2/catch.hpp>
#include <limits>

using namespace fleetsim;

TEST_CASE("Go durations parse to exact microseconds", "[core]") {
  CHECK(parse_duration("90s") == seconds(90));
  CHECK(parse_duration("5m") == minutes(5));
  CHECK(parse_duration("1h30m") == minutes(90));
  CHECK(parse_duration("500ms") == millis(500));
  CHECK(parse_duration("1.5h") == minutes(90));
  CHECK(parse_duration("720h") == hours(720));
  CHECK(parse_duration("0") == SimDuration{0});
}

TEST_CASE("malformed durations are rejected", "[core]") {
  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("10"));
  CHECK_FALSE(parse_duration("-5s"));
  CHECK_FALSE(parse_duration("5x"));
  CHECK_FALSE(parse_duration("s"));
  CHECK_FALSE(parse_duration("99999999999999h"));
}

TEST_CASE("durations format as Go does", "[core]") {
  CHECK(format_duration(minutes(90)) == "1h30m0s");
  CHECK(format_duration(millis(500)) == "500ms");
  CHECK(format_duration(seconds(15)) == "15s");
}

TEST_CASE("sums and products of durations saturate at never instead of wrapping", "[core]") {
  CHECK(saturating_add(at(seconds(5)), seconds(3)) == at(seconds(8)));
  CHECK(saturating_add(at(hours(1)), kForever) == kNever);
  CHECK(saturating_add(kNever, seconds(1)) == kNever);
  CHECK(saturating_mul(seconds(10), 3) == seconds(30));
  CHECK(saturating_mul(seconds(8589), 2147483646) == kForever);  // 8589 s × 2^31: past int64 µs
  CHECK(saturating_mul(kForever, 0) == SimDuration::zero());
  CHECK(from_seconds(1e300) == kForever);
  CHECK(from_seconds(-1e300) == -kForever);
  CHECK(from_seconds(std::numeric_limits<double>::quiet_NaN()) == SimDuration::zero());
  CHECK(from_seconds(1.5) == millis(1500));
}
