#include "fleetsim/core/time.hpp"

#include <catch2/catch.hpp>

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
