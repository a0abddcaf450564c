#include "fleetsim/core/csv_reader.hpp"

#include <fmt/format.h>

#include <system_error>
#include <utility>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool is_space(char c) { return c == ' ' || c == '\t'; }

bool is_blank(std::string_view line) {
  for (char c : line)
    if (!is_space(c)) return false;
  return true;
}

}  // namespace

CsvReader::CsvReader(std::filesystem::path path) : path_(std::move(path)), file_(path_.string()) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path_, ec)) {
    throw TraceError(SourceLocation{file_}, "",
                     std::filesystem::exists(path_, ec) ? "trace is not a regular file"
                                                        : "trace file not found");
  }
  in_.open(path_, std::ios::binary);
  if (!in_) throw TraceError(SourceLocation{file_}, "", "cannot open the trace file");
}

void CsvReader::fail(int col, std::string field, std::string message) const {
  throw TraceError(SourceLocation{file_, line_, col}, std::move(field), std::move(message));
}

bool CsvReader::read_line() {
  if (!std::getline(in_, line_text_)) {
    if (in_.bad()) throw TraceError(SourceLocation{file_, line_ + 1}, "", "read error");
    return false;
  }
  ++line_;
  if (!line_text_.empty() && line_text_.back() == '\r') line_text_.pop_back();  // CRLF files
  return true;
}

std::span<const CsvField> CsvReader::read_header(std::string_view expected) {
  if (!read_line()) {
    throw TraceError(SourceLocation{file_, 1, 1}, "",
                     fmt::format("trace is empty; expected a header row such as \"{}\"", expected));
  }
  if (line_text_.starts_with(kUtf8Bom)) line_text_.erase(0, kUtf8Bom.size());
  if (is_blank(line_text_)) {
    throw TraceError(SourceLocation{file_, 1, 1}, "",
                     fmt::format("the header row is blank; expected one such as \"{}\"", expected));
  }
  split();
  field_count_ = fields_.size();
  header_lines_ = line_;
  data_start_ = in_.tellg();
  return fields_;
}

bool CsvReader::next_row() {
  while (read_line()) {
    if (is_blank(line_text_)) {
      if (!blank_line_) blank_line_ = line_;
      continue;
    }
    if (blank_line_) {
      throw TraceError(SourceLocation{file_, *blank_line_, 1}, "",
                       "blank line inside the trace (only trailing blank lines are allowed)");
    }
    split();
    if (fields_.size() > field_count_) {
      fail(fields_[field_count_].col, "",
           fmt::format("expected {} fields as in the header, found {}", field_count_,
                       fields_.size()));
    }
    if (fields_.size() < field_count_) {
      // Point past the end of the line, where the first missing field should have been.
      fail(character_column(line_text_, line_text_.size()), "",
           fmt::format("expected {} fields as in the header, found {}", field_count_,
                       fields_.size()));
    }
    ++rows_;
    return true;
  }
  if (rows_ == 0) {
    throw TraceError(SourceLocation{file_, 1, 1}, "", "trace has no rows (only a header)");
  }
  return false;
}

void CsvReader::rewind() {
  in_.clear();
  in_.seekg(data_start_);
  if (!in_) throw TraceError(SourceLocation{file_}, "", "cannot seek in the trace file");
  line_ = header_lines_;
  rows_ = 0;
  blank_line_.reset();
}

void CsvReader::split() {
  if (auto error = split_csv_line(line_text_, fields_, unquoted_)) fail(error->col, "", std::string(error->message));
}

}  // namespace fleetsim
