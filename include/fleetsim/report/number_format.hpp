// Number and string formatting shared by the report writers, fixed so output is byte-stable.
#pragma once

#include <string>
#include <string_view>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// Reports carry at most this many decimals: a micro-dollar and a microsecond are below anything a
// user compares, and fixed rounding keeps reports stable across platforms and readable.
inline constexpr int kReportDecimals = 6;

// Rounds to kReportDecimals decimals; never returns -0.
double round_report(double x);

// Appends x in fixed notation with at most kReportDecimals decimals, trailing zeros trimmed
// ("1.5", "0.000001", "60"). With keep_point a whole number keeps one decimal ("60.0"), as
// nlohmann::json renders doubles, so a JSON reader sees the same type in every file. Never uses
// exponent notation. x must be finite.
void append_decimal(std::string& out, double x, bool keep_point);

// x rounded to `digits` significant digits, in fixed notation with the trailing zeros that are
// significant ("131", "48000", "71.0", "0.0512", "0"): for figures known only to a relative
// accuracy, such as quantiles from the 1% sketch, where more digits would claim precision they
// lack. x must be finite; digits ≥ 1.
std::string format_significant(double x, int digits);

// Appends a time as seconds since the start, exact (SimTime is whole microseconds).
void append_seconds(std::string& out, SimTime t, bool keep_point);

// Appends s as a JSON string literal, quotes included. Bytes >= 0x80 pass through (UTF-8).
void append_json_string(std::string& out, std::string_view s);

}  // namespace fleetsim
