// Splits one CSV line into fields (RFC 4180 quoting on a single line), shared by every reader.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

// One field: unquoted, blanks around it trimmed. `text` views the line or the caller's
// `unquoted` buffer, so it lives as long as both.
struct CsvField {
  std::string_view text;
  int col = 0;  // 1-based character column where the field starts (UTF-8 aware)
};

// A malformed line: where and why. Callers raise their own error type (catalog, trace) from it.
struct CsvSyntaxError {
  int col = 0;
  std::string_view message;
};

// Splits `line` (no line break) into `fields`. Quoted fields may hold commas and doubled quotes
// but not line breaks, so every record is one line and its line number is exact. Quoted text is
// un-escaped into `unquoted`, which is reserved to the line's length up front so it never moves
// while earlier fields point into it; once the buffers have grown, splitting allocates nothing.
std::optional<CsvSyntaxError> split_csv_line(std::string_view line, std::vector<CsvField>& fields,
                                             std::string& unquoted);

// The 1-based character column of byte `byte` of `line` (UTF-8 continuation bytes do not count).
int character_column(std::string_view line, std::size_t byte);

}  // namespace fleetsim
