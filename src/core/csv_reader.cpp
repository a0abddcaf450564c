#include "fleetsim/core/csv_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

#include "fleetsim/core/name_distance.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
// Read size; lines are assembled from it, so it bounds nothing but the read calls.
constexpr std::size_t kBufferBytes = std::size_t{64} << 10;
// Field text quoted in a message is cut to this many bytes (a 1 MiB field makes a 1 MiB message).
constexpr std::size_t kMaxQuotedBytes = 40;
// Header names listed in the missing-column message.
constexpr std::size_t kMaxListedColumns = 30;

bool is_space(char c) { return c == ' ' || c == '\t'; }

bool is_blank(std::string_view line) {
  for (char c : line)
    if (!is_space(c)) return false;
  return true;
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Columns count characters, not bytes: UTF-8 continuation bytes do not start a character.
class ColumnCounter {
 public:
  explicit ColumnCounter(std::string_view line) : line_(line) {}
  int at(std::size_t byte) {
    for (; pos_ < byte && pos_ < line_.size(); ++pos_) {
      if (!is_continuation(line_[pos_])) ++col_;
    }
    return col_;
  }

 private:
  std::string_view line_;
  std::size_t pos_ = 0;
  int col_ = 1;
};

// A field's text for a message: at most kMaxQuotedBytes, cut at a character boundary.
std::string_view abbreviated(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return text;
  std::size_t n = kMaxQuotedBytes;
  while (n > 0 && is_continuation(text[n])) --n;
  return text.substr(0, n);
}

std::string shown(std::string_view text) {
  std::string_view cut = abbreviated(text);
  return cut.size() == text.size() ? std::string(text) : fmt::format("{}…", cut);
}

}  // namespace

CsvReader::CsvReader(std::filesystem::path path, CsvOptions options)
    : file_(path.string()), options_(options) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    raise(0, 0, "", fmt::format("{} file not found", options_.noun));
  }
  if (std::filesystem::is_directory(status)) {
    raise(0, 0, "", fmt::format("is a directory, not a {} file", options_.noun));
  }
  if (!std::filesystem::is_regular_file(status)) raise(0, 0, "", "not a regular file");
  if (options_.max_file_bytes > 0) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > options_.max_file_bytes) {
      raise(0, 0, "",
            fmt::format("file is {} bytes; a {} file may be at most {} bytes", size, options_.noun,
                        options_.max_file_bytes));
    }
  }
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) raise(0, 0, "", fmt::format("cannot open the {} file", options_.noun));
  in_ = std::move(in);
  buffer_ = std::make_unique<char[]>(kBufferBytes);
  read_header();
}

CsvReader::CsvReader(std::unique_ptr<std::istream> in, std::string file, CsvOptions options)
    : in_(std::move(in)), file_(std::move(file)), options_(options) {
  buffer_ = std::make_unique<char[]>(kBufferBytes);
  read_header();
}

CsvReader CsvReader::from_text(std::string text, std::string file_name, CsvOptions options) {
  return CsvReader(std::make_unique<std::istringstream>(std::move(text)), std::move(file_name),
                   options);
}

CsvReader::~CsvReader() = default;
CsvReader::CsvReader(CsvReader&&) noexcept = default;
CsvReader& CsvReader::operator=(CsvReader&&) noexcept = default;

void CsvReader::raise(int line, int col, std::string field, std::string message) const {
  SourceLocation where{.file = file_, .line = line, .col = col};
  if (options_.input == CsvInput::Catalog) {
    throw CatalogError(std::move(where), std::move(field), std::move(message));
  }
  throw TraceError(std::move(where), std::move(field), std::move(message));
}

void CsvReader::fail(std::size_t column, std::string message, int offset) const {
  raise(line_, fields_[column].col + offset, header_[column], std::move(message));
}

void CsvReader::fail_at(int col, std::string field, std::string message) const {
  raise(line_, col, std::move(field), std::move(message));
}

std::vector<std::string> CsvReader::check_columns(std::span<const std::string_view> known,
                                                  std::span<const std::string_view> ignored) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < header_.size(); ++i) {
    const std::string& name = header_[i];
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (std::find(ignored.begin(), ignored.end(), name) != ignored.end()) {
      out.push_back(name);
      continue;
    }
    // A column nothing reads is a silent mistake: a user's capacity_type would bill nothing.
    const std::optional<std::string_view> hint = closest_name(name, known);
    raise(header_line_, header_cols_[i], name.substr(0, 60),
          fmt::format("unknown column, not read; the {} reads {}{}", options_.noun,
                      fmt::join(known, ","),
                      hint ? fmt::format("; did you mean \"{}\"?", *hint) : ""));
  }
  return out;
}

void CsvReader::fail_header(std::string field, std::string message) const {
  raise(header_line_, 1, std::move(field), std::move(message));
}

// ---- lines ----------------------------------------------------------------------------------

bool CsvReader::fill() {
  buffer_offset_ += end_;
  pos_ = 0;
  end_ = 0;
  if (at_eof_) return false;
  in_->read(buffer_.get(), static_cast<std::streamsize>(kBufferBytes));
  end_ = static_cast<std::size_t>(in_->gcount());
  if (in_->bad()) raise(line_ + 1, 0, "", "read error");
  if (end_ < kBufferBytes) at_eof_ = true;
  return end_ > 0;
}

bool CsvReader::read_line() {
  line_text_.clear();
  bool any = false;
  while (pos_ < end_ || fill()) {
    const char* begin = buffer_.get() + pos_;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', end_ - pos_));
    const std::size_t n = newline ? static_cast<std::size_t>(newline - begin) : end_ - pos_;
    if (line_text_.size() + n > kMaxLineBytes) {
      raise(line_ + 1, 0, "",
            fmt::format("line is longer than {} bytes; is this a CSV file?", kMaxLineBytes));
    }
    line_text_.append(begin, n);
    pos_ += n;
    any = true;
    if (newline) {
      ++pos_;
      break;
    }
  }
  if (!any) return false;
  ++line_;
  if (!line_text_.empty() && line_text_.back() == '\r') line_text_.pop_back();  // CRLF files
  if (line_ == 1 && line_text_.starts_with(kUtf8Bom)) line_text_.erase(0, kUtf8Bom.size());
  return true;
}

// Splits line_text_ into fields_. Quoted fields may hold commas and doubled quotes but not line
// breaks. Quoted text is un-escaped into unquoted_, reserved to the line's length up front so it
// never moves while earlier fields point into it; once the buffers have grown, this allocates
// nothing.
void CsvReader::split() {
  const std::string_view line = line_text_;
  fields_.clear();
  unquoted_.clear();
  unquoted_.reserve(line.size());
  ColumnCounter cols(line);
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && is_space(line[i])) ++i;
    CsvField field;
    field.col = cols.at(i);
    if (i < line.size() && line[i] == '"') {
      const std::size_t open = i++;
      const std::size_t begin = unquoted_.size();
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            unquoted_ += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        unquoted_ += line[i++];
      }
      if (!closed) {
        fail_at(cols.at(open), "",
                "unterminated quoted field (a quoted field must end on its line)");
      }
      while (i < line.size() && is_space(line[i])) ++i;
      if (i < line.size() && line[i] != ',') {
        fail_at(cols.at(i), "", "unexpected text after a closing quote");
      }
      field.text = std::string_view(unquoted_).substr(begin);
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',') ++i;
      std::size_t end = i;
      while (end > start && is_space(line[end - 1])) --end;
      field.text = line.substr(start, end - start);
    }
    fields_.push_back(field);
    if (i >= line.size()) return;
    ++i;  // the comma
  }
}

// ---- header and rows ------------------------------------------------------------------------

void CsvReader::read_header() {
  bool have_line = read_line();
  while (have_line && options_.skip_blank_lines && is_blank(line_text_)) have_line = read_line();
  const std::string example = options_.example_header.empty()
                                  ? std::string()
                                  : fmt::format(" such as \"{}\"", options_.example_header);
  if (!have_line) {
    raise(1, 1, "", fmt::format("{} is empty; expected a header row{}", options_.noun, example));
  }
  if (is_blank(line_text_)) {
    raise(line_, 1, "",
          example.empty() ? std::string("the header row is blank")
                          : fmt::format("the header row is blank; expected one{}", example));
  }
  split();
  header_.reserve(fields_.size());
  header_cols_.reserve(fields_.size());
  for (const CsvField& f : fields_) {
    header_.emplace_back(f.text);
    header_cols_.push_back(f.col);
  }
  header_line_ = line_;
  data_start_ = buffer_offset_ + pos_;
}

std::optional<std::size_t> CsvReader::column(std::string_view name) const {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] != name) continue;
    if (found) {
      raise(header_line_, header_cols_[i], std::string(name),
            fmt::format("column appears twice (first at column {})", header_cols_[*found]));
    }
    found = i;
  }
  return found;
}

std::size_t CsvReader::require(std::string_view name) const {
  if (auto i = column(name)) return *i;
  std::string names;
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (i > 0) names += ", ";
    if (i == kMaxListedColumns) {
      names += "…";
      break;
    }
    names += shown(header_[i]);
  }
  fail_header(std::string(name), fmt::format("missing column (the header has: {})", names));
}

bool CsvReader::next_row() {
  while (read_line()) {
    if (is_blank(line_text_)) {
      if (!options_.skip_blank_lines && !blank_line_) blank_line_ = line_;
      continue;
    }
    if (blank_line_) {
      raise(*blank_line_, 1, "",
            fmt::format("blank line inside the {} (only trailing blank lines are allowed)",
                        options_.noun));
    }
    split();
    const std::size_t expected = header_.size();
    if (fields_.size() != expected) {
      // Point at the first extra field, or past the end where the first missing one belongs.
      const int col = fields_.size() > expected ? fields_[expected].col
                                                : ColumnCounter(line_text_).at(line_text_.size());
      fail_at(
          col, "",
          fmt::format("expected {} fields as in the header, found {}", expected, fields_.size()));
    }
    ++rows_;
    return true;
  }
  if (rows_ == 0) {
    raise(header_line_, 1, "", fmt::format("{} has no rows (only a header)", options_.noun));
  }
  return false;
}

void CsvReader::rewind() {
  in_->clear();
  in_->seekg(static_cast<std::streamoff>(data_start_));
  if (!*in_) raise(0, 0, "", fmt::format("cannot seek in the {} file", options_.noun));
  buffer_offset_ = data_start_;
  pos_ = 0;
  end_ = 0;
  at_eof_ = false;
  line_ = header_line_;
  rows_ = 0;
  blank_line_.reset();
}

// ---- values ---------------------------------------------------------------------------------

double CsvReader::number(std::size_t column) const {
  const std::string_view text = field(column);
  if (text.empty()) fail(column, "is empty; expected a number");
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ptr != end || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
    fail(column, fmt::format("expected a number, got \"{}\"", shown(text)));
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(v)) {
    fail(column, fmt::format("must be a finite number, got {}", shown(text)));
  }
  return v;
}

std::int64_t CsvReader::integer(std::size_t column, std::int64_t min, std::int64_t max) const {
  const std::string_view text = field(column);
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end) {
    const double v = number(column);
    if (v != std::floor(v)) {
      fail(column, fmt::format("must be a whole number, got {}", shown(text)));
    }
    if (v < static_cast<double>(min)) {
      value = std::numeric_limits<std::int64_t>::min();
    } else if (v > static_cast<double>(max)) {
      value = std::numeric_limits<std::int64_t>::max();
    } else {
      value = static_cast<std::int64_t>(v);
    }
  }
  if (value < min) {
    if (min == 0) fail(column, fmt::format("must not be negative, got {}", shown(text)));
    fail(column, fmt::format("must be at least {}, got {}", min, shown(text)));
  }
  if (value > max) fail(column, fmt::format("must be at most {}, got {}", max, shown(text)));
  return value;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';  // a quote is doubled
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace fleetsim
