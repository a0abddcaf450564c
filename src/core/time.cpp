#include "fleetsim/core/time.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

SimDuration from_seconds_in_full(double s) {
  const double us = s * 1e6;
  if (std::isnan(us)) return SimDuration::zero();
  // 2^63 is the first double past the int64 range.
  constexpr double kLimit = 9223372036854775808.0;
  if (us >= kLimit) return kForever;
  if (us <= -kLimit) return -kForever;
  return SimDuration{round_to_int64(us)};  // llround's rounding, inline: the serving path's times
}

namespace {

struct Unit {
  std::string_view suffix;
  double micros;
};

// Longest suffixes first so that "ms" is not read as "m" followed by "s".
constexpr Unit kUnits[] = {{"ns", 1e-3}, {"us", 1.0}, {"µs", 1.0},   {"ms", 1e3},
                           {"s", 1e6},   {"m", 60e6}, {"h", 3600e6}, {"d", 86400e6}};

}  // namespace

std::optional<SimDuration> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text == "0") return SimDuration{0};
  double total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == start) return std::nullopt;
    std::string number(text.substr(start, i - start));
    char* end = nullptr;
    double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return std::nullopt;
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(i, u.suffix.size()) == u.suffix &&
          (u.suffix != "m" || text.substr(i, 2) != "ms")) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) return std::nullopt;
    i += unit->suffix.size();
    total += value * unit->micros;
  }
  if (!std::isfinite(total) ||
      total > static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2)) {
    return std::nullopt;
  }
  return SimDuration{static_cast<std::int64_t>(std::llround(total))};
}

std::string format_duration(SimDuration d) {
  std::int64_t us = d.count();
  if (us == 0) return "0s";
  std::string sign = us < 0 ? "-" : "";
  if (us < 0) us = -us;
  if (us < 1'000'000) {
    if (us % 1000 == 0) return fmt::format("{}{}ms", sign, us / 1000);
    return fmt::format("{}{}us", sign, us);
  }
  std::int64_t h = us / 3'600'000'000;
  std::int64_t m = (us / 60'000'000) % 60;
  double s = static_cast<double>(us % 60'000'000) / 1e6;
  std::string out = sign;
  if (h > 0) out += fmt::format("{}h", h);
  if (h > 0 || m > 0) out += fmt::format("{}m", m);
  out += fmt::format("{}s", s);
  return out;
}

}  // namespace fleetsim
