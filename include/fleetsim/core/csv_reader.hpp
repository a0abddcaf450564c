// A streamed CSV reader for trace files: one row at a time, fields located by line and column.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/csv_line.hpp"

namespace fleetsim {

// Reads a CSV file with a header row, one line at a time, so memory stays flat in file length
// (DESIGN.md §3). Once its buffers have grown to the longest line, reading a row allocates
// nothing, which keeps request-trace replay off the allocator.
//
// Accepted: RFC 4180 quoting ("a,b", "" for a quote; no line breaks inside quotes), blanks around
// fields, CRLF endings, a UTF-8 byte-order mark (Excel's export), trailing blank lines. Every
// problem throws TraceError naming file:line:col, where col counts characters, not bytes, so a
// message points at the right place after non-ASCII text.
class CsvReader {
 public:
  // Opens the file; throws if it is missing, not a regular file or unreadable.
  explicit CsvReader(std::filesystem::path path);

  // Reads the header row. `expected` is an example header for the messages about a missing one.
  std::span<const CsvField> read_header(std::string_view expected);

  // Reads the next data row; false at the end. A row must have as many fields as the header; a
  // blank line may only be followed by blank lines; a trace without rows is an error.
  bool next_row();
  std::span<const CsvField> fields() const { return fields_; }

  // Back to the first data row (for looping replay). Row checks start over.
  void rewind();

  // The 1-based line of the current row, for messages.
  int line() const { return line_; }
  // Data rows read since the header (or the last rewind).
  int rows() const { return rows_; }
  const std::string& file() const { return file_; }

  // Throws TraceError at column `col` of the current line.
  [[noreturn]] void fail(int col, std::string field, std::string message) const;

 private:
  bool read_line();
  void split();

  std::filesystem::path path_;
  std::string file_;  // path_ as text, for messages
  std::ifstream in_;
  std::streampos data_start_{};  // where the first data row begins
  std::string line_text_;
  std::string unquoted_;  // quoted fields' text after un-escaping; reserved to the line length
  std::vector<CsvField> fields_;
  std::size_t field_count_ = 0;  // the header's
  int header_lines_ = 0;
  int line_ = 0;
  int rows_ = 0;
  std::optional<int> blank_line_;  // first blank line seen; an error if a row follows
};

}  // namespace fleetsim
