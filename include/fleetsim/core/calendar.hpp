// The calendar time of simulated t = 0, written as RFC 3339 in UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleetsim {

// Unless a scenario's `start` says otherwise: Monday 2024-01-01T00:00:00Z.
inline constexpr std::int64_t kDefaultStartUnixSeconds = 1'704'067'200;
// Years a start may name: enough for any plan, and far from int64 limits.
inline constexpr int kMinStartYear = 1970;
inline constexpr int kMaxStartYear = 2200;

struct ParsedTimestamp {
  std::optional<std::int64_t> unix_s;  // nullopt: `problem` says why
  std::string problem;
};

// "2025-03-03T08:00:00Z", with an offset ("…T09:00:00+01:00"), a lower-case t or z, or a date
// alone ("2025-03-03", midnight UTC); whole seconds only.
ParsedTimestamp parse_rfc3339(std::string_view text);

// "2025-03-03T08:00:00Z".
std::string format_rfc3339(std::int64_t unix_s);

}  // namespace fleetsim
