#include "fleetsim/core/calendar.hpp"

#include <fmt/format.h>

#include <chrono>

namespace fleetsim {

namespace {

using namespace std::chrono;

// `width` decimal digits at text[at…], or nullopt.
std::optional<int> digits(std::string_view text, std::size_t at, std::size_t width) {
  if (at + width > text.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

ParsedTimestamp problem(std::string message) {
  return {.unix_s = std::nullopt, .problem = message};
}

}  // namespace

ParsedTimestamp parse_rfc3339(std::string_view text) {
  constexpr std::string_view kForm =
      "expected an RFC 3339 time such as 2025-03-03T00:00:00Z (or a date, 2025-03-03)";
  auto y = digits(text, 0, 4);
  auto mo = digits(text, 5, 2);
  auto d = digits(text, 8, 2);
  if (!y || !mo || !d || text[4] != '-' || text[7] != '-') return problem(std::string(kForm));
  if (*y < kMinStartYear || *y > kMaxStartYear)
    return problem(fmt::format("the year must be from {} to {}", kMinStartYear, kMaxStartYear));
  const year_month_day date{year{*y}, month{static_cast<unsigned>(*mo)},
                            day{static_cast<unsigned>(*d)}};
  if (!date.ok()) return problem(fmt::format("{} is not a date", text.substr(0, 10)));
  std::int64_t seconds_of_day = 0;
  std::int64_t offset_s = 0;
  if (text.size() > 10) {
    auto h = digits(text, 11, 2);
    auto mi = digits(text, 14, 2);
    auto s = digits(text, 17, 2);
    const char sep = text[10];
    if ((sep != 'T' && sep != 't' && sep != ' ') || !h || !mi || !s || text[13] != ':' ||
        text[16] != ':')
      return problem(std::string(kForm));
    if (*h > 23 || *mi > 59 || *s > 59)
      return problem(fmt::format("{} is not a time of day", text.substr(11, 8)));
    seconds_of_day = (*h * 60 + *mi) * 60 + *s;
    std::string_view zone = text.substr(19);
    if (zone == "Z" || zone == "z") {
      offset_s = 0;
    } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
      auto oh = digits(zone, 1, 2);
      auto om = digits(zone, 4, 2);
      if (!oh || !om || *oh > 23 || *om > 59) return problem(std::string(kForm));
      offset_s = (*oh * 60 + *om) * 60 * (zone[0] == '-' ? -1 : 1);
    } else if (!zone.empty() && zone[0] == '.') {
      return problem("whole seconds only");
    } else {
      return problem("the time needs a zone: Z for UTC, or an offset such as +01:00");
    }
  }
  const std::int64_t days = sys_days(date).time_since_epoch().count();
  return {.unix_s = days * 86400 + seconds_of_day - offset_s, .problem = {}};
}

std::string format_rfc3339(std::int64_t unix_s) {
  const sys_seconds t{seconds{unix_s}};
  const sys_days day = floor<days>(t);
  const year_month_day date{day};
  const hh_mm_ss<seconds> time{t - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     time.hours().count(), time.minutes().count(), time.seconds().count());
}

}  // namespace fleetsim
