#include "fleetsim/core/quantity.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>

namespace fleetsim {

namespace {

struct Suffix {
  std::string_view text;
  long double factor;
};

// Binary suffixes first: "Mi" must not match the decimal "M".
constexpr std::array<Suffix, 14> kSuffixes{{
    {"Ki", 1024.0L},
    {"Mi", 1024.0L * 1024},
    {"Gi", 1024.0L * 1024 * 1024},
    {"Ti", 1024.0L * 1024 * 1024 * 1024},
    {"Pi", 1024.0L * 1024 * 1024 * 1024 * 1024},
    {"Ei", 1024.0L * 1024 * 1024 * 1024 * 1024 * 1024},
    {"n", 1e-9L},
    {"u", 1e-6L},
    {"m", 1e-3L},
    {"k", 1e3L},
    {"M", 1e6L},
    {"G", 1e9L},
    {"T", 1e12L},
    {"P", 1e15L},
}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text) {
  QuantityProblem problem{};
  return parse_quantity(text, problem);
}

std::optional<Quantity> parse_quantity(std::string_view text, QuantityProblem& problem) {
  problem = QuantityProblem::Malformed;
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::size_t i = 0;
  if (text[0] == '+') i = 1;
  std::size_t number_start = i;
  bool seen_digit = false, seen_dot = false;
  while (i < text.size() && (is_digit(text[i]) || (text[i] == '.' && !seen_dot))) {
    seen_digit |= is_digit(text[i]);
    seen_dot |= text[i] == '.';
    ++i;
  }
  if (!seen_digit) return std::nullopt;
  std::string number(text.substr(number_start, i - number_start));
  long double scale = 1.0L;
  std::string_view rest = text.substr(i);
  // "Ei" is the exbi suffix, not an exponent.
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E') && rest.size() > 1 && rest != "Ei") {
    std::size_t j = 1;
    bool negative = false;
    if (rest[j] == '+' || rest[j] == '-') negative = rest[j++] == '-';
    std::size_t exp_start = j;
    while (j < rest.size() && is_digit(rest[j])) ++j;
    if (j == exp_start || j != rest.size() || j - exp_start > 3) return std::nullopt;
    int exponent = std::stoi(std::string(rest.substr(exp_start, j - exp_start)));
    scale = std::pow(10.0L, negative ? -exponent : exponent);
    rest = {};
  }
  if (!rest.empty()) {
    bool matched = false;
    for (const Suffix& s : kSuffixes) {
      if (rest == s.text) {
        scale = s.factor;
        matched = true;
        break;
      }
    }
    if (!matched) return std::nullopt;
  }
  long double milli = std::stold(number) * scale * 1000.0L;
  if (!std::isfinite(static_cast<double>(milli)) ||
      milli > static_cast<long double>(kMaxQuantityUnits) * 1000.0L) {
    problem = QuantityProblem::TooLarge;
    return std::nullopt;
  }
  // Kubernetes rounds fractional milli-units up.
  return Quantity{static_cast<std::int64_t>(std::ceil(milli - 1e-9L))};
}

std::string format_bytes(std::int64_t bytes) {
  constexpr std::array<std::string_view, 5> kUnits{"", "Ki", "Mi", "Gi", "Ti"};
  std::size_t unit = 0;
  std::int64_t v = bytes;
  while (unit + 1 < kUnits.size() && v != 0 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", v, kUnits[unit]);
}

std::string format_millicores(std::int64_t millicores) {
  if (millicores % 1000 == 0) return fmt::format("{}", millicores / 1000);
  return fmt::format("{}m", millicores);
}

}  // namespace fleetsim
