// A small RFC 4180 reader for catalog files: a header row, one record per line, located errors.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim::csv {

struct Field {
  std::string text;  // unquoted, surrounding blanks trimmed
  int col = 0;       // 1-based column where the field starts
};

struct Record {
  int line = 0;  // 1-based physical line
  std::vector<Field> fields;
};

// A whole CSV file held in memory (catalog files are small; see kMaxFileBytes). Quoted fields
// may hold commas and doubled quotes but not line breaks, so every record is one line and its
// line number is exact. Blank lines are skipped; CRLF and a UTF-8 byte-order mark are accepted.
class Table {
 public:
  // Throws CatalogError when the file is missing, unreadable, too large, empty, malformed, or a
  // record's field count differs from the header's.
  static Table read(const std::filesystem::path& path);

  const std::string& file() const { return file_; }
  // The column's index; throws CatalogError at the header's line (file:1) naming the column when it
  // is absent.
  std::size_t require(std::string_view column) const;
  std::optional<std::size_t> find(std::string_view column) const;
  const std::vector<Record>& records() const { return records_; }

  // A CatalogError located at a field of a record, naming the column.
  CatalogError error(const Record& r, std::size_t column, std::string message) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  int header_line_ = 1;
  std::vector<Record> records_;
};

}  // namespace fleetsim::csv
