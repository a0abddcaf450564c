// Five-field cron schedules (UTC), as Karpenter's disruption budgets use them.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleetsim {

// A calendar minute, UTC.
struct CivilMinute {
  int year = 1970, month = 1, day = 1, hour = 0, minute = 0;
  int weekday = 4;  // 0 = Sunday; 1970-01-01 was a Thursday
};

// Minutes since 1970-01-01T00:00Z to the calendar (proleptic Gregorian).
CivilMinute civil_from_unix_minutes(std::int64_t minutes);

class CronSchedule {
 public:
  // "minute hour day-of-month month day-of-week" with *, ?, lists, ranges, steps and names
  // (jan–dec, sun–sat; day-of-week 0-6 as in robfig/cron, which Karpenter uses), or @yearly,
  // @annually, @monthly, @weekly, @daily, @midnight, @hourly. nullopt when malformed; `error` (if
  // given) says why.
  static std::optional<CronSchedule> parse(std::string_view text, std::string* error = nullptr);

  bool matches(const CivilMinute& m) const;
  bool matches_date(const CivilMinute& m) const;  // month and the day-of-month/day-of-week rule
  bool matches_hour(int hour) const;
  // Whether the schedule fired in the minutes (now − span, now], Unix minutes, UTC.
  bool fired_within(std::int64_t now_minute, std::int64_t span_minutes) const;

 private:
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<7> weekdays_;  // 0..6, Sunday = 0
  bool day_restricted_ = false;
  bool weekday_restricted_ = false;
};

}  // namespace fleetsim
