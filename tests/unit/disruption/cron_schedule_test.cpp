// Five-field cron schedules for disruption budgets, and the UTC calendar they are matched against.
#include "fleetsim/disruption/cron_schedule.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>

using namespace fleetsim;

namespace {

// Monday 2024-01-01T00:00Z in minutes since the epoch (1 704 067 200 s / 60).
constexpr std::int64_t kMonday20240101 = 28'401'120;

std::string show(const CivilMinute& m) {
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02} weekday {}", m.year, m.month, m.day, m.hour,
                     m.minute, m.weekday);
}

// A calendar minute counted from Monday 2024-01-01 00:00 UTC.
CivilMinute jan2024(int days, int hour = 0, int minute = 0) {
  return civil_from_unix_minutes(kMonday20240101 + days * 1440 + hour * 60 + minute);
}

bool matches(std::string_view spec, const CivilMinute& m) {
  std::string error;
  auto cron = CronSchedule::parse(spec, &error);
  INFO(spec << ": " << error);
  REQUIRE(cron);
  return cron->matches(m);
}

std::string parse_error(std::string_view spec) {
  std::string error;
  auto cron = CronSchedule::parse(spec, &error);
  INFO(spec);
  CHECK_FALSE(cron);
  return error;
}

}  // namespace

TEST_CASE("the calendar starts on Thursday 1970-01-01", "[disruption]") {
  CHECK(show(civil_from_unix_minutes(0)) == "1970-01-01 00:00 weekday 4");
  // One minute before the epoch is Wednesday evening.
  CHECK(show(civil_from_unix_minutes(-1)) == "1969-12-31 23:59 weekday 3");
}

TEST_CASE("known dates convert from minutes since the epoch", "[disruption]") {
  // Minute counts computed independently (Python datetime, UTC).
  CHECK(show(civil_from_unix_minutes(28'486'897)) ==
        "2024-02-29 13:37 weekday 4");  // leap day, Thursday
  CHECK(show(civil_from_unix_minutes(15'864'480)) ==
        "2000-03-01 00:00 weekday 3");  // after a 400-year leap day
  CHECK(show(civil_from_unix_minutes(68'459'040)) ==
        "2100-03-01 00:00 weekday 1");  // 2100 is not a leap year
  CHECK(show(civil_from_unix_minutes(kMonday20240101)) == "2024-01-01 00:00 weekday 1");
  CHECK(show(jan2024(5, 9, 0)) == "2024-01-06 09:00 weekday 6");
}

TEST_CASE("a cron schedule needs exactly five fields", "[disruption]") {
  CHECK(parse_error("0 9 * *").find("five fields") != std::string::npos);
  CHECK(parse_error("0 0 9 * * *").find("five fields") != std::string::npos);
  CHECK(parse_error("").find("five fields") != std::string::npos);
}

TEST_CASE("out-of-range values and unknown names are rejected", "[disruption]") {
  CHECK(parse_error("61 * * * *") == "bad minute field");
  CHECK(parse_error("60 * * * *") == "bad minute field");
  CHECK(parse_error("0 24 * * *") == "bad hour field");
  CHECK(parse_error("0 0 0 * *") == "bad day-of-month field");
  CHECK(parse_error("0 0 32 * *") == "bad day-of-month field");
  CHECK(parse_error("0 0 * smarch *") == "bad month field");
  CHECK(parse_error("0 0 * 13 *") == "bad month field");
  CHECK(parse_error("0 9 * * funday") == "bad day-of-week field (0-6 or sun-sat)");
  CHECK(parse_error("0 9 * * 8") == "bad day-of-week field (0-6 or sun-sat)");
  CHECK(parse_error("*/0 * * * *") == "bad minute field");
  CHECK(parse_error("5-1 * * * *") == "bad minute field");
}

TEST_CASE("'0 9 * * mon-fri' fires at 09:00 on weekdays only", "[disruption]") {
  CHECK(matches("0 9 * * mon-fri", jan2024(0, 9, 0)));        // Monday 2024-01-01 09:00
  CHECK(matches("0 9 * * mon-fri", jan2024(4, 9, 0)));        // Friday
  CHECK_FALSE(matches("0 9 * * mon-fri", jan2024(5, 9, 0)));  // Saturday 2024-01-06
  CHECK_FALSE(matches("0 9 * * mon-fri", jan2024(6, 9, 0)));  // Sunday
  CHECK_FALSE(matches("0 9 * * mon-fri", jan2024(0, 9, 1)));
  CHECK_FALSE(matches("0 9 * * mon-fri", jan2024(0, 10, 0)));
}

TEST_CASE("names are case-insensitive", "[disruption]") {
  CHECK(matches("0 9 * * MON", jan2024(0, 9, 0)));
  CHECK(matches("0 0 1 Jan *", jan2024(0)));
  CHECK_FALSE(matches("0 0 1 FEB *", jan2024(0)));
}

TEST_CASE("'*/15 * * * *' fires four times an hour", "[disruption]") {
  int hits = 0;
  for (int minute = 0; minute < 60; ++minute)
    hits += matches("*/15 * * * *", jan2024(2, 13, minute)) ? 1 : 0;
  CHECK(hits == 4);
  CHECK(matches("*/15 * * * *", jan2024(2, 13, 45)));
  CHECK_FALSE(matches("*/15 * * * *", jan2024(2, 13, 14)));
}

TEST_CASE("'N/step' runs from N to the end of the field", "[disruption]") {
  // 5/20 is 5-59/20: minutes 5, 25 and 45.
  CHECK(matches("5/20 * * * *", jan2024(0, 0, 5)));
  CHECK(matches("5/20 * * * *", jan2024(0, 0, 25)));
  CHECK(matches("5/20 * * * *", jan2024(0, 0, 45)));
  CHECK_FALSE(matches("5/20 * * * *", jan2024(0, 0, 0)));
  CHECK_FALSE(matches("5/20 * * * *", jan2024(0, 0, 50)));
}

// A step up to INT_MAX is robfig/cron's getRange: it keeps the start only, and never overflows
// (issue 25, item 8: "1/2147483647 * * * *" must neither drop the budget nor loop); a step past
// INT_MAX is refused.
TEST_CASE("a step as large as INT_MAX keeps the start only, a larger one is refused",
          "[disruption]") {
  CHECK(matches("1/2147483647 * * * *", jan2024(0, 0, 1)));
  CHECK(matches("1/2147483647 * * * *", jan2024(3, 17, 1)));
  CHECK_FALSE(matches("1/2147483647 * * * *", jan2024(0, 0, 2)));
  CHECK_FALSE(parse_error("1/2147483648 * * * *").empty());
}

TEST_CASE("lists and ranges combine", "[disruption]") {
  CHECK(matches("0,30 8-10 * * *", jan2024(1, 8, 30)));
  CHECK(matches("0,30 8-10 * * *", jan2024(1, 10, 0)));
  CHECK_FALSE(matches("0,30 8-10 * * *", jan2024(1, 11, 0)));
  CHECK_FALSE(matches("0,30 8-10 * * *", jan2024(1, 9, 15)));
}

TEST_CASE("'@daily' fires at midnight every day", "[disruption]") {
  for (int day = 0; day < 7; ++day) CHECK(matches("@daily", jan2024(day)));
  CHECK_FALSE(matches("@daily", jan2024(0, 0, 1)));
  CHECK_FALSE(matches("@daily", jan2024(0, 12, 0)));
  CHECK(matches("@midnight", jan2024(3)));
  CHECK(matches("@hourly", jan2024(3, 17, 0)));
  CHECK_FALSE(matches("@hourly", jan2024(3, 17, 1)));
  // @weekly is Sunday midnight.
  CHECK(matches("@weekly", jan2024(6)));
  CHECK_FALSE(matches("@weekly", jan2024(0)));
}

TEST_CASE("'0 0 1 * *' fires on the first of each month", "[disruption]") {
  CHECK(matches("0 0 1 * *", jan2024(0)));         // 2024-01-01
  CHECK(matches("0 0 1 * *", jan2024(31)));        // 2024-02-01
  CHECK(matches("0 0 1 * *", jan2024(60)));        // 2024-03-01, after the leap day
  CHECK_FALSE(matches("0 0 1 * *", jan2024(1)));   // 2024-01-02
  CHECK_FALSE(matches("0 0 1 * *", jan2024(59)));  // 2024-02-29
  CHECK(matches("@monthly", jan2024(31)));
  CHECK(matches("@yearly", jan2024(0)));
  CHECK_FALSE(matches("@yearly", jan2024(31)));
}

TEST_CASE("day-of-week runs 0-6 with Sunday as 0, as in robfig/cron", "[disruption]") {
  // Karpenter validates budget schedules with robfig/cron, whose day-of-week range is 0-6:
  // a 7 (Vixie cron's second Sunday) is rejected there, so it is rejected here.
  CHECK(matches("0 0 * * 0", jan2024(6)));  // Sunday 2024-01-07
  CHECK(matches("0 0 * * sun", jan2024(6)));
  CHECK_FALSE(CronSchedule::parse("0 0 * * 7"));
  CHECK_FALSE(CronSchedule::parse("0 0 * * 5-7"));
  CHECK(matches("0 0 * * 5-6", jan2024(5)));  // Saturday
  CHECK(matches("0 0 ? * mon", jan2024(0)));  // '?' stands for '*'
}

TEST_CASE("a day-of-week step never wraps to Sunday", "[disruption]") {
  // 2/2 is 2-6/2: Tuesday, Thursday, Saturday.
  CHECK(matches("0 0 * * 2/2", jan2024(1)));        // Tuesday
  CHECK(matches("0 0 * * 2/2", jan2024(5)));        // Saturday
  CHECK_FALSE(matches("0 0 * * 2/2", jan2024(2)));  // Wednesday
  CHECK_FALSE(matches("0 0 * * 2/2", jan2024(6)));  // Sunday
}

TEST_CASE("a stepped star restricts the day rule, as robfig/cron's starBit does", "[disruption]") {
  // "*/2" in day-of-month is restricted, so with a restricted day-of-week either may match.
  CHECK(matches("0 0 */2 * mon", jan2024(0)));        // 2024-01-01: odd day and a Monday
  CHECK(matches("0 0 */2 * mon", jan2024(7)));        // 2024-01-08: even day but a Monday
  CHECK(matches("0 0 */2 * mon", jan2024(2)));        // 2024-01-03: day 3 matches 1,3,5…
  CHECK_FALSE(matches("0 0 */2 * mon", jan2024(1)));  // 2024-01-02: even, Tuesday
}

TEST_CASE("restricted day-of-month and day-of-week match either", "[disruption]") {
  // Standard cron: with both day fields restricted a day matches if either does.
  CHECK(matches("0 0 13 * fri", jan2024(4)));         // Friday 2024-01-05
  CHECK(matches("0 0 13 * fri", jan2024(12)));        // Saturday 2024-01-13
  CHECK_FALSE(matches("0 0 13 * fri", jan2024(13)));  // Sunday 2024-01-14
  // With one of them '*', both must hold.
  CHECK_FALSE(matches("0 0 13 * *", jan2024(4)));
  CHECK_FALSE(matches("0 0 * * fri", jan2024(12)));
  CHECK(matches("0 0 * * fri", jan2024(4)));
}
