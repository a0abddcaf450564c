#include "fleetsim/disruption/cron_schedule.hpp"

#include <array>
#include <charconv>
#include <vector>

namespace fleetsim {

CivilMinute civil_from_unix_minutes(std::int64_t minutes) {
  std::int64_t days = minutes >= 0 ? minutes / 1440 : (minutes - 1439) / 1440;
  std::int64_t in_day = minutes - days * 1440;
  CivilMinute c;
  c.hour = static_cast<int>(in_day / 60);
  c.minute = static_cast<int>(in_day % 60);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);  // day 0 was a Thursday (4)
  // Howard Hinnant's civil_from_days.
  std::int64_t z = days + 719468;
  std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  std::int64_t doe = z - era * 146097;
  std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::int64_t mp = (5 * doy + 2) / 153;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = static_cast<int>(yoe + era * 400 + (c.month <= 2 ? 1 : 0));
  return c;
}

namespace {

constexpr std::array<std::string_view, 12> kMonths{"jan", "feb", "mar", "apr", "may", "jun",
                                                   "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDays{"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

std::optional<int> value_of(std::string_view s, int first_name_value, const std::string_view* names,
                            std::size_t n) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size()) return v;
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (std::size_t i = 0; i < n; ++i)
    if (names[i] == lower) return first_name_value + static_cast<int>(i);
  return std::nullopt;
}

// Sets bits [lo, hi] of a field from its comma-separated parts, as robfig/cron (which Karpenter
// uses) parses them. Returns false when malformed. `*restricted` is false only for a bare `*`
// or `?`: with a step above one the field restricts the day rule (robfig's starBit).
template <std::size_t N>
bool parse_field(std::string_view field, int lo, int hi, std::bitset<N>& out, bool* restricted,
                 const std::string_view* names = nullptr, std::size_t name_count = 0,
                 int first_name_value = 0) {
  *restricted = false;
  while (!field.empty()) {
    std::size_t comma = field.find(',');
    std::string_view part = field.substr(0, comma);
    field = comma == std::string_view::npos ? std::string_view{} : field.substr(comma + 1);
    int step = 1;
    if (auto slash = part.find('/'); slash != std::string_view::npos) {
      auto s = value_of(part.substr(slash + 1), 0, nullptr, 0);
      if (!s || *s <= 0) return false;
      step = *s;
      part = part.substr(0, slash);
    }
    int from = lo, to = hi;
    if (part == "*" || part == "?") {
      *restricted |= step > 1;
    } else {
      *restricted = true;
      auto dash = part.find('-');
      auto a = value_of(part.substr(0, dash), first_name_value, names, name_count);
      if (!a) return false;
      from = *a;
      to = *a;
      if (dash != std::string_view::npos) {
        auto b = value_of(part.substr(dash + 1), first_name_value, names, name_count);
        if (!b) return false;
        to = *b;
      } else if (step > 1) {
        to = hi;  // "5/15" means from 5 to the end in steps of 15
      }
    }
    if (from < lo || to > hi || from > to) return false;
    // 64-bit: a step up to INT_MAX must not overflow the loop.
    for (std::int64_t v = from; v <= to; v += step) out.set(static_cast<std::size_t>(v));
  }
  return true;
}

}  // namespace

std::optional<CronSchedule> CronSchedule::parse(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<CronSchedule> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kMacros{{
      {"@yearly", "0 0 1 1 *"},
      {"@annually", "0 0 1 1 *"},
      {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"},
      {"@daily", "0 0 * * *"},
      {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"},
  }};
  for (auto [macro, expansion] : kMacros)
    if (text == macro) text = expansion;
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  if (fields.size() != 5)
    return fail("a cron schedule has five fields: minute hour day-of-month month day-of-week");
  CronSchedule c;
  bool ignored = false;
  if (!parse_field(fields[0], 0, 59, c.minutes_, &ignored)) return fail("bad minute field");
  if (!parse_field(fields[1], 0, 23, c.hours_, &ignored)) return fail("bad hour field");
  if (!parse_field(fields[2], 1, 31, c.days_, &c.day_restricted_))
    return fail("bad day-of-month field");
  if (!parse_field(fields[3], 1, 12, c.months_, &ignored, kMonths.data(), kMonths.size(), 1))
    return fail("bad month field");
  // robfig/cron's day-of-week is 0-6 (Sunday = 0); it rejects 7.
  if (!parse_field(fields[4], 0, 6, c.weekdays_, &c.weekday_restricted_, kDays.data(), kDays.size(),
                   0))
    return fail("bad day-of-week field (0-6 or sun-sat)");
  return c;
}

bool CronSchedule::matches(const CivilMinute& m) const {
  return matches_date(m) && matches_hour(m.hour) &&
         minutes_.test(static_cast<std::size_t>(m.minute));
}

bool CronSchedule::matches_date(const CivilMinute& m) const {
  if (!months_.test(static_cast<std::size_t>(m.month))) return false;
  bool day = days_.test(static_cast<std::size_t>(m.day));
  bool weekday = weekdays_.test(static_cast<std::size_t>(m.weekday));
  // Standard cron: when both day fields are restricted, either may match.
  if (day_restricted_ && weekday_restricted_) return day || weekday;
  return day && weekday;
}

bool CronSchedule::matches_hour(int hour) const {
  return hours_.test(static_cast<std::size_t>(hour));
}

bool CronSchedule::fired_within(std::int64_t now_minute, std::int64_t span_minutes) const {
  // Walk back from now, skipping whole days and hours that cannot match.
  const std::int64_t earliest = now_minute - span_minutes + 1;
  for (std::int64_t m = now_minute; m >= earliest;) {
    CivilMinute c = civil_from_unix_minutes(m);
    if (!matches_date(c)) {
      m -= c.hour * 60 + c.minute + 1;
    } else if (!matches_hour(c.hour)) {
      m -= c.minute + 1;
    } else if (minutes_.test(static_cast<std::size_t>(c.minute))) {
      return true;
    } else {
      --m;
    }
  }
  return false;
}

}  // namespace fleetsim
