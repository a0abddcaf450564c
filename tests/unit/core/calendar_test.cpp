#include "fleetsim/core/calendar.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

TEST_CASE("RFC 3339 start times parse to Unix seconds (issue 12, finding 5)", "[core]") {
  CHECK(parse_rfc3339("2024-01-01T00:00:00Z").unix_s == kDefaultStartUnixSeconds);
  CHECK(parse_rfc3339("2025-03-03T00:00:00Z").unix_s == 1'740'960'000);
  CHECK(parse_rfc3339("2025-03-03t08:00:00z").unix_s == 1'740'988'800);
  CHECK(parse_rfc3339("2025-03-03T09:30:00+01:30").unix_s == 1'740'988'800);
  CHECK(parse_rfc3339("2025-03-03T03:00:00-05:00").unix_s == 1'740'988'800);
  CHECK(parse_rfc3339("2025-03-03").unix_s == 1'740'960'000);
  CHECK(parse_rfc3339("2024-02-29T23:59:59Z").unix_s == 1'709'251'199);
}

TEST_CASE("a bad start time says what is wrong", "[core]") {
  auto problem = [](std::string_view text) { return parse_rfc3339(text).problem; };
  const std::string form =
      "expected an RFC 3339 time such as 2025-03-03T00:00:00Z (or a date, 2025-03-03)";
  CHECK(problem("tomorrow") == form);
  CHECK(problem("2025-3-3") == form);
  CHECK(problem("2025-03-03T8:00:00Z") == form);
  CHECK(problem("2025-02-29T00:00:00Z") == "2025-02-29 is not a date");
  CHECK(problem("2025-03-03T24:00:00Z") == "24:00:00 is not a time of day");
  CHECK(problem("2025-03-03T00:00:00") ==
        "the time needs a zone: Z for UTC, or an offset such as +01:00");
  CHECK(problem("2025-03-03T00:00:00.5Z") == "whole seconds only");
  CHECK(problem("1969-12-31T00:00:00Z") == "the year must be from 1970 to 2200");
  CHECK(problem("2201-01-01") == "the year must be from 1970 to 2200");
}

TEST_CASE("start times format as RFC 3339 in UTC", "[core]") {
  CHECK(format_rfc3339(kDefaultStartUnixSeconds) == "2024-01-01T00:00:00Z");
  CHECK(format_rfc3339(1'740'988'800) == "2025-03-03T08:00:00Z");
  CHECK(format_rfc3339(1'709'251'199) == "2024-02-29T23:59:59Z");
  CHECK(format_rfc3339(0) == "1970-01-01T00:00:00Z");
}
