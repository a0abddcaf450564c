// The one CSV reader: catalogs, job traces, request traces and metric series all read through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

// One field of the current row: unquoted, blanks around it trimmed. `text` views the reader's
// buffers and lives until the next row is read.
struct CsvField {
  std::string_view text;
  int col = 0;  // 1-based character column where the field starts (UTF-8 aware)
};

// Which error a reader throws: CatalogError for catalog tables, TraceError for everything else.
enum class CsvInput : std::uint8_t { Trace, Catalog };

// What the file is, for messages and limits. The views must outlive the reader (literals do).
struct CsvOptions {
  // Names the input in messages: "trace" reads "trace file not found", "trace has no rows".
  std::string_view noun = "trace";
  // An example header, quoted in the messages about a missing one.
  std::string_view example_header;
  CsvInput input = CsvInput::Trace;
  // false: only trailing blank lines are allowed, a blank line before a row is an error (a cut
  // or pasted trace); true: blank lines are skipped wherever they are.
  bool skip_blank_lines = false;
  // Files larger than this are refused before reading (for inputs held whole); 0: no limit.
  std::uintmax_t max_file_bytes = 0;
};

// Reads a CSV file with a header row, one line at a time, so memory stays flat in file length
// (DESIGN.md §3). Once its buffers have grown to the longest line, reading a row allocates
// nothing, which keeps million-row traces off the allocator.
//
// Accepted: RFC 4180 quoting ("a,b", "" for a quote; no line breaks inside quotes, so every
// record is one line and its line number is exact), blanks around fields, CRLF or LF line ends,
// a UTF-8 byte-order mark (Excel's export), trailing blank lines. A row must have as many fields
// as the header, and a file needs a header and at least one row. Every problem throws the
// options' error (InputError) naming file:line:col and, for a field, its column's name; col
// counts characters, not bytes, so a message points at the right place after non-ASCII text.
class CsvReader {
 public:
  // A line longer than this is not a CSV record (a binary file, or one without line breaks);
  // the limit keeps a wrong file from growing the line buffer without bound.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  // Opens the file and reads its header; throws if the file is missing, not a regular file,
  // unreadable, over options.max_file_bytes, empty or has a blank header.
  explicit CsvReader(std::filesystem::path path, CsvOptions options = {});
  // As above, for text already in memory; `file_name` is used in messages.
  static CsvReader from_text(std::string text, std::string file_name, CsvOptions options = {});

  // Moving a reader invalidates the current row's fields (not the header).
  ~CsvReader();
  CsvReader(CsvReader&&) noexcept;
  CsvReader& operator=(CsvReader&&) noexcept;

  // ---- the header ----
  // The header's column names, unquoted and trimmed, in file order.
  const std::vector<std::string>& header() const { return header_; }
  int header_line() const { return header_line_; }
  // The column named `name`, if the header has it; a name that appears twice is an error at the
  // second ("column appears twice (first at column 3)"). Other columns may repeat freely.
  std::optional<std::size_t> column(std::string_view name) const;
  // As column(), but a missing column is an error at the header naming it and listing the
  // header's columns.
  std::size_t require(std::string_view name) const;
  // Every column must be one of `known` (the columns read) or `ignored` (documented as read
  // past): another is an error at its header column listing `known`, with a "did you mean".
  // Returns the `ignored` columns the header has, in header order, for the caller to warn of.
  std::vector<std::string> check_columns(std::span<const std::string_view> known,
                                         std::span<const std::string_view> ignored = {}) const;

  // ---- rows ----
  // Reads the next data row; false at the end. Throws on a malformed line, a row whose field
  // count differs from the header's, a blank line before a row (unless skipped), and at the end
  // of a file without rows.
  bool next_row();
  std::span<const CsvField> fields() const { return fields_; }
  // The text of the current row's field in `column` (an index from column() or require()).
  std::string_view field(std::size_t column) const { return fields_[column].text; }

  // Back to the first data row (for looping replay). Row checks start over.
  void rewind();

  // The 1-based line of the current row (of the header before the first row), for messages.
  int line() const { return line_; }
  // Data rows read since the header (or the last rewind).
  int rows() const { return rows_; }
  const std::string& file() const { return file_; }

  // ---- values of the current row; errors name the field's column ----
  // Any finite decimal number: "is empty; expected a number", "expected a number, got \"x\"",
  // "must be a finite number, got inf".
  double number(std::size_t column) const;
  // A whole number within [min, max]; integral decimals ("4.0", as pandas writes) pass.
  std::int64_t integer(std::size_t column, std::int64_t min, std::int64_t max) const;

  // ---- errors (all throw the options' error type) ----
  // At the current row's field in `column` (`offset` characters into it), naming the column.
  [[noreturn]] void fail(std::size_t column, std::string message, int offset = 0) const;
  // At character `col` of the current line; `field` may be empty.
  [[noreturn]] void fail_at(int col, std::string field, std::string message) const;
  // At the start of the header line.
  [[noreturn]] void fail_header(std::string field, std::string message) const;

 private:
  CsvReader(std::unique_ptr<std::istream> in, std::string file, CsvOptions options);

  [[noreturn]] void raise(int line, int col, std::string field, std::string message) const;
  void read_header();
  bool read_line();
  bool fill();
  void split();

  std::unique_ptr<std::istream> in_;
  std::string file_;  // the path as text, for messages
  CsvOptions options_;

  // Bytes read from the stream: buffer_[pos_, end_) is not yet consumed; buffer_[0] is at
  // stream offset buffer_offset_.
  std::unique_ptr<char[]> buffer_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uint64_t buffer_offset_ = 0;
  bool at_eof_ = false;
  std::uint64_t data_start_ = 0;  // stream offset of the line after the header

  std::vector<std::string> header_;
  std::vector<int> header_cols_;  // each header field's column
  int header_line_ = 0;

  std::string line_text_;  // the current line, without its line break
  std::string unquoted_;   // quoted fields' text after un-escaping; reserved to the line length
  std::vector<CsvField> fields_;
  int line_ = 0;
  int rows_ = 0;
  std::optional<int> blank_line_;  // first blank line since the last row; an error if one follows
};

// A field as a CSV writer writes it: quoted, with quotes doubled, when it holds a comma, a quote
// or a line break; as it is otherwise.
std::string csv_field(std::string_view text);

}  // namespace fleetsim
