#include "fleetsim/workload/job_trace.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

enum class Column : std::uint8_t { Submit, Duration, Gpus, Cpu, Memory, Name, Priority };

struct ColumnSpec {
  std::string_view name;
  bool required;
};

// Indexed by Column.
constexpr std::array<ColumnSpec, 7> kColumns = {{
    {"submit_time_s", true},
    {"duration_s", true},
    {"gpus", true},
    {"cpu_millis", true},
    {"memory_mib", true},
    {"name", false},
    {"priority", false},
}};

constexpr std::size_t index_of(Column c) { return static_cast<std::size_t>(c); }
constexpr std::string_view name_of(Column c) { return kColumns[index_of(c)].name; }

// Limits beyond which a value is surely a mistake (wrong unit or wrong column), not a job.
// The largest instances carry 8–16 accelerators (p5.48xlarge: 8 H100, trn1.32xlarge: 16
// Trainium); 64 leaves room for multi-device pods while catching unit mix-ups.
constexpr std::int64_t kMaxGpus = 64;
// The largest EC2 instance (u7in-32tb.224xlarge) has 896 vCPUs; one pod asking for over 4,096
// is a unit mix-up (cores × 1000 twice).
constexpr std::int64_t kMaxCpuMillis = 4'096'000;
// 64 TiB: twice the largest EC2 instance's memory (u7in-32tb, 32 TiB).
constexpr std::int64_t kMaxMemoryMib = std::int64_t{64} * 1024 * 1024;
constexpr std::int64_t kBytesPerMib = 1024 * 1024;
// A job running over a year is a unit mix-up (milliseconds read as seconds).
constexpr double kMaxDurationS = 365.0 * 86400.0;
// A trace spanning over ten years is a unit mix-up too; the bound also keeps microseconds
// far from int64 overflow.
constexpr double kMaxSubmitS = 10.0 * 365.0 * 86400.0;
// Kubernetes priority values are int32 (PriorityClass.value).
constexpr std::int64_t kMinPriority = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMaxPriority = std::numeric_limits<std::int32_t>::max();

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

struct Field {
  std::string text;  // unquoted and trimmed
  int col = 0;       // 1-based character column where the field starts
};

bool is_space(char c) { return c == ' ' || c == '\t'; }

bool is_blank(std::string_view line) {
  for (char c : line)
    if (!is_space(c)) return false;
  return true;
}

// Columns count characters, not bytes, so a message points at the right place after a
// non-ASCII name: UTF-8 continuation bytes do not start a character.
class ColumnCounter {
 public:
  explicit ColumnCounter(std::string_view line) : line_(line) {}
  int at(std::size_t byte) {
    for (; pos_ < byte && pos_ < line_.size(); ++pos_) {
      if ((static_cast<unsigned char>(line_[pos_]) & 0xC0) != 0x80) ++col_;
    }
    return col_;
  }

 private:
  std::string_view line_;
  std::size_t pos_ = 0;
  int col_ = 1;
};

// Splits one CSV line (RFC 4180 quoting, no line breaks inside quotes). On malformed quoting,
// returns the column of the problem in `bad_col`.
std::vector<Field> split_fields(std::string_view line, int& bad_col, std::string& problem) {
  std::vector<Field> fields;
  ColumnCounter cols(line);
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && is_space(line[i])) ++i;
    Field field;
    field.col = cols.at(i);
    if (i < line.size() && line[i] == '"') {
      const std::size_t open = i++;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.text += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field.text += line[i++];
      }
      if (!closed) {
        bad_col = cols.at(open);
        problem = "unterminated quoted field";
        return {};
      }
      while (i < line.size() && is_space(line[i])) ++i;
      if (i < line.size() && line[i] != ',') {
        bad_col = cols.at(i);
        problem = "unexpected text after a closing quote";
        return {};
      }
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',') ++i;
      std::size_t end = i;
      while (end > start && is_space(line[end - 1])) --end;
      field.text.assign(line.substr(start, end - start));
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

// Parses and range-checks the numbers of one row, throwing with the field's location.
class RowParser {
 public:
  RowParser(const std::string& file, int line, const std::vector<Field>& fields,
            const std::array<std::optional<std::size_t>, kColumns.size()>& field_of)
      : file_(file), line_(line), fields_(fields), field_of_(field_of) {}

  const Field* find(Column c) const {
    const auto& i = field_of_[index_of(c)];
    return i ? &fields_[*i] : nullptr;
  }
  const Field& get(Column c) const { return *find(c); }  // required columns always exist

  [[noreturn]] void fail(Column c, const std::string& message) const {
    throw TraceError(SourceLocation{file_, line_, get(c).col}, std::string(name_of(c)), message);
  }

  // Seconds, decimals allowed, within [0, max_s].
  double seconds(Column c, double max_s, std::string_view limit_text) const {
    const std::string& text = get(c).text;
    const double v = number(c);
    if (v < 0) fail(c, fmt::format("must not be negative, got {}", text));
    if (v > max_s) fail(c, fmt::format("must be at most {}, got {}", limit_text, text));
    return v;
  }

  // A whole number within [min, max]; integral decimals ("4.0", as pandas writes) are accepted.
  std::int64_t integer(Column c, std::int64_t min, std::int64_t max) const {
    const std::string& text = get(c).text;
    std::int64_t value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end) {
      const double v = number(c);
      if (v != std::floor(v)) fail(c, fmt::format("must be a whole number, got {}", text));
      if (v < static_cast<double>(min) || v > static_cast<double>(max)) {
        value = v < 0 ? std::numeric_limits<std::int64_t>::min()
                      : std::numeric_limits<std::int64_t>::max();
      } else {
        value = static_cast<std::int64_t>(v);
      }
    }
    if (value < min) {
      if (min == 0) fail(c, fmt::format("must not be negative, got {}", text));
      fail(c, fmt::format("must be at least {}, got {}", min, text));
    }
    if (value > max) fail(c, fmt::format("must be at most {}, got {}", max, text));
    return value;
  }

 private:
  // Any finite decimal number.
  double number(Column c) const {
    const std::string& text = get(c).text;
    if (text.empty()) fail(c, "is empty; expected a number");
    double v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ptr != end || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
      fail(c, fmt::format("expected a number, got \"{}\"", text));
    }
    if (ec == std::errc::result_out_of_range || !std::isfinite(v)) {
      fail(c, fmt::format("must be a finite number, got {}", text));
    }
    return v;
  }

  const std::string& file_;
  int line_;
  const std::vector<Field>& fields_;
  const std::array<std::optional<std::size_t>, kColumns.size()>& field_of_;
};

}  // namespace

JobTraceReader::JobTraceReader(std::filesystem::path path)
    : path_(std::move(path)), file_(path_.string()) {
  static_assert(kColumns.size() == kColumnCount);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path_, ec)) {
    throw TraceError(SourceLocation{file_}, "",
                     std::filesystem::exists(path_, ec) ? "trace is not a regular file"
                                                        : "trace file not found");
  }
  in_.open(path_, std::ios::binary);
  if (!in_) throw TraceError(SourceLocation{file_}, "", "cannot open the trace file");
  read_header();
}

bool JobTraceReader::read_line(std::string& line) {
  if (!std::getline(in_, line)) {
    if (in_.bad()) throw TraceError(SourceLocation{file_, line_ + 1}, "", "read error");
    return false;
  }
  ++line_;
  if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
  return true;
}

void JobTraceReader::read_header() {
  std::string header;
  const std::string expected = "submit_time_s,duration_s,gpus,cpu_millis,memory_mib";
  if (!read_line(header)) {
    throw TraceError(SourceLocation{file_, 1, 1}, "",
                     fmt::format("trace is empty; expected a header row such as \"{}\"", expected));
  }
  if (header.starts_with(kUtf8Bom)) header.erase(0, kUtf8Bom.size());  // Excel's CSV export
  if (is_blank(header)) {
    throw TraceError(SourceLocation{file_, 1, 1}, "",
                     fmt::format("the header row is blank; expected one such as \"{}\"", expected));
  }
  int bad_col = 0;
  std::string problem;
  const std::vector<Field> fields = split_fields(header, bad_col, problem);
  if (fields.empty()) throw TraceError(SourceLocation{file_, 1, bad_col}, "", problem);
  field_count_ = fields.size();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    for (std::size_t c = 0; c < kColumns.size(); ++c) {
      if (fields[i].text != kColumns[c].name) continue;
      if (field_of_[c]) {
        throw TraceError(
            SourceLocation{file_, 1, fields[i].col}, fields[i].text,
            fmt::format("column appears twice (first at column {})", fields[*field_of_[c]].col));
      }
      field_of_[c] = i;
    }
  }
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    if (!kColumns[c].required || field_of_[c]) continue;
    std::string names;
    for (const Field& f : fields) names += (names.empty() ? "" : ", ") + f.text;
    throw TraceError(SourceLocation{file_, 1, 1}, std::string(kColumns[c].name),
                     fmt::format("required column is missing (the header has: {})", names));
  }
}

std::optional<JobArrival> JobTraceReader::next() {
  if (done_) return std::nullopt;
  std::string line;
  while (read_line(line)) {
    if (is_blank(line)) {
      if (!blank_line_) blank_line_ = line_;
      continue;
    }
    if (blank_line_) {
      throw TraceError(SourceLocation{file_, *blank_line_, 1}, "",
                       "blank line inside the trace (only trailing blank lines are allowed)");
    }
    return parse_row(line);
  }
  done_ = true;
  if (rows_ == 0) {
    throw TraceError(SourceLocation{file_, 1, 1}, "", "trace has no rows (only a header)");
  }
  return std::nullopt;
}

JobArrival JobTraceReader::parse_row(const std::string& line) {
  int bad_col = 0;
  std::string problem;
  const std::vector<Field> fields = split_fields(line, bad_col, problem);
  if (fields.empty()) throw TraceError(SourceLocation{file_, line_, bad_col}, "", problem);
  if (fields.size() > field_count_) {
    throw TraceError(
        SourceLocation{file_, line_, fields[field_count_].col}, "",
        fmt::format("expected {} fields as in the header, found {}", field_count_, fields.size()));
  }
  if (fields.size() < field_count_) {
    // Point past the end of the line, where the first missing field should have been.
    ColumnCounter cols(line);
    throw TraceError(
        SourceLocation{file_, line_, cols.at(line.size())}, "",
        fmt::format("expected {} fields as in the header, found {}", field_count_, fields.size()));
  }
  ++rows_;
  const RowParser row(file_, line_, fields, field_of_);

  JobArrival job;
  job.line = line_;
  job.submit = at(from_seconds(row.seconds(Column::Submit, kMaxSubmitS, "10 years")));
  if (rows_ > 1 && job.submit < last_submit_) {
    row.fail(Column::Submit, fmt::format("submit times must not decrease: {} after {}",
                                         row.get(Column::Submit).text, last_submit_text_));
  }
  last_submit_ = job.submit;
  last_submit_text_ = row.get(Column::Submit).text;

  job.duration = from_seconds(row.seconds(Column::Duration, kMaxDurationS, "365 days"));
  job.gpus = static_cast<int>(row.integer(Column::Gpus, 0, kMaxGpus));
  job.cpu_millis = row.integer(Column::Cpu, 0, kMaxCpuMillis);
  job.memory_bytes = row.integer(Column::Memory, 0, kMaxMemoryMib) * kBytesPerMib;
  const Field* name = row.find(Column::Name);
  job.name = name && !name->text.empty() ? name->text : fmt::format("job-{}", rows_);
  const Field* priority = row.find(Column::Priority);
  if (priority && !priority->text.empty()) {
    job.priority =
        static_cast<std::int32_t>(row.integer(Column::Priority, kMinPriority, kMaxPriority));
  }
  return job;
}

}  // namespace fleetsim
