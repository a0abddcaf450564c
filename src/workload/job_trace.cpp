#include "fleetsim/workload/job_trace.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>

#include "fleetsim/core/csv_reader.hpp"
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

// Parses and range-checks the numbers of one row, throwing with the field's location.
class RowParser {
 public:
  RowParser(const CsvReader& csv,
            const std::array<std::optional<std::size_t>, kColumns.size()>& field_of)
      : csv_(csv), fields_(csv.fields()), field_of_(field_of) {}

  const CsvField* find(Column c) const {
    const auto& i = field_of_[index_of(c)];
    return i ? &fields_[*i] : nullptr;
  }
  const CsvField& get(Column c) const { return *find(c); }  // required columns always exist

  [[noreturn]] void fail(Column c, const std::string& message) const {
    csv_.fail(get(c).col, std::string(name_of(c)), message);
  }

  // Seconds, decimals allowed, within [0, max_s].
  double seconds(Column c, double max_s, std::string_view limit_text) const {
    const std::string_view text = get(c).text;
    const double v = number(c);
    if (v < 0) fail(c, fmt::format("must not be negative, got {}", text));
    if (v > max_s) fail(c, fmt::format("must be at most {}, got {}", limit_text, text));
    return v;
  }

  // A whole number within [min, max]; integral decimals ("4.0", as pandas writes) are accepted.
  std::int64_t integer(Column c, std::int64_t min, std::int64_t max) const {
    const std::string_view text = get(c).text;
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
    const std::string_view text = get(c).text;
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

  const CsvReader& csv_;
  std::span<const CsvField> fields_;
  const std::array<std::optional<std::size_t>, kColumns.size()>& field_of_;
};

}  // namespace

JobTraceReader::JobTraceReader(std::filesystem::path path)
    : path_(std::move(path)), csv_(std::make_unique<CsvReader>(path_)) {
  static_assert(kColumns.size() == kColumnCount);
  read_header();
}

JobTraceReader::~JobTraceReader() = default;
JobTraceReader::JobTraceReader(JobTraceReader&&) noexcept = default;
JobTraceReader& JobTraceReader::operator=(JobTraceReader&&) noexcept = default;

void JobTraceReader::read_header() {
  const std::span<const CsvField> fields =
      csv_->read_header("submit_time_s,duration_s,gpus,cpu_millis,memory_mib");
  for (std::size_t i = 0; i < fields.size(); ++i) {
    for (std::size_t c = 0; c < kColumns.size(); ++c) {
      if (fields[i].text != kColumns[c].name) continue;
      if (field_of_[c]) {
        csv_->fail(fields[i].col, std::string(fields[i].text),
                   fmt::format("column appears twice (first at column {})",
                               fields[*field_of_[c]].col));
      }
      field_of_[c] = i;
    }
  }
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    if (!kColumns[c].required || field_of_[c]) continue;
    std::string names;
    for (const CsvField& f : fields) {
      if (!names.empty()) names += ", ";
      names += f.text;
    }
    csv_->fail(1, std::string(kColumns[c].name),
               fmt::format("required column is missing (the header has: {})", names));
  }
}

std::optional<JobArrival> JobTraceReader::next() {
  if (done_) return std::nullopt;
  if (csv_->next_row()) return parse_row();
  done_ = true;
  return std::nullopt;
}

JobArrival JobTraceReader::parse_row() {
  const RowParser row(*csv_, field_of_);
  const int rows = csv_->rows();

  JobArrival job;
  job.line = csv_->line();
  job.submit = at(from_seconds(row.seconds(Column::Submit, kMaxSubmitS, "10 years")));
  if (rows > 1 && job.submit < last_submit_) {
    row.fail(Column::Submit, fmt::format("submit times must not decrease: {} after {}",
                                         row.get(Column::Submit).text, last_submit_text_));
  }
  last_submit_ = job.submit;
  last_submit_text_ = row.get(Column::Submit).text;

  job.duration = from_seconds(row.seconds(Column::Duration, kMaxDurationS, "365 days"));
  job.gpus = static_cast<int>(row.integer(Column::Gpus, 0, kMaxGpus));
  job.cpu_millis = row.integer(Column::Cpu, 0, kMaxCpuMillis);
  job.memory_bytes = row.integer(Column::Memory, 0, kMaxMemoryMib) * kBytesPerMib;
  const CsvField* name = row.find(Column::Name);
  job.name = name && !name->text.empty() ? std::string(name->text) : fmt::format("job-{}", rows);
  const CsvField* priority = row.find(Column::Priority);
  if (priority && !priority->text.empty()) {
    job.priority =
        static_cast<std::int32_t>(row.integer(Column::Priority, kMinPriority, kMaxPriority));
  }
  return job;
}

}  // namespace fleetsim
