#include "fleetsim/report/number_format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <string>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/utf8.hpp"

namespace fleetsim {

namespace {

constexpr double kReportScale = 1e6;  // 10^kReportDecimals
static_assert(kReportDecimals == 6, "kReportScale must be 10^kReportDecimals");

void trim_fraction(std::string& out, std::size_t start, bool keep_point) {
  const std::size_t point = out.find('.', start);
  if (point == std::string::npos) return;
  std::size_t end = out.size();
  while (end > point + 1 && out[end - 1] == '0') --end;
  if (end == point + 1 && !keep_point) --end;  // drop the lone '.'
  if (end == point + 1 && keep_point) ++end;   // keep "x.0"
  out.resize(end);
}

}  // namespace

double round_report(double x) {
  double r = std::round(x * kReportScale) / kReportScale;
  return r == 0.0 ? 0.0 : r;  // -0.0 == 0.0: this clears the sign
}

void append_decimal(std::string& out, double x, bool keep_point) {
  FLEETSIM_ASSERT(std::isfinite(x));
  const std::size_t start = out.size();
  // {:.6f} is correctly rounded by fmt, so the digits do not depend on the C library.
  fmt::format_to(std::back_inserter(out), "{:.6f}", round_report(x));
  trim_fraction(out, start, keep_point);
}

std::string format_significant(double x, int digits) {
  FLEETSIM_ASSERT(std::isfinite(x) && digits >= 1);
  if (x == 0.0) return "0";
  // fmt's exponent form is correctly rounded: "4.80e+04" gives the digits and the exponent.
  const std::string e = fmt::format("{:.{}e}", std::abs(x), digits - 1);
  const std::size_t mark = e.find('e');
  std::string mantissa;
  for (char c : e.substr(0, mark))
    if (c != '.') mantissa.push_back(c);
  const int exponent = std::stoi(e.substr(mark + 1));
  std::string out = x < 0 ? "-" : "";
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    out += mantissa;
  } else if (exponent + 1 >= digits) {
    out += mantissa;
    out.append(static_cast<std::size_t>(exponent + 1 - digits), '0');
  } else {
    out += mantissa.substr(0, static_cast<std::size_t>(exponent + 1));
    out += '.';
    out += mantissa.substr(static_cast<std::size_t>(exponent + 1));
  }
  return out;
}

void append_seconds(std::string& out, SimTime t, bool keep_point) {
  const std::int64_t us = t.time_since_epoch().count();
  const std::size_t start = out.size();
  // Integer arithmetic: exact for every representable time, no rounding at all.
  const std::int64_t whole = us / 1'000'000;
  const std::int64_t frac = us % 1'000'000;
  if (us < 0 && whole == 0) out.push_back('-');
  fmt::format_to(std::back_inserter(out), "{}.{:06d}", whole, frac < 0 ? -frac : frac);
  trim_fraction(out, start, keep_point);
}

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Valid UTF-8 is copied; an invalid byte becomes U+FFFD, so the output stays valid JSON.
      const std::size_t n = utf8_sequence_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace fleetsim
