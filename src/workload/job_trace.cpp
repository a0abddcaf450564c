#include "fleetsim/workload/job_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/utf8.hpp"

namespace fleetsim {

namespace {

constexpr std::size_t kMaxNameBytes = 253;

// A name goes into every output: bounded, valid UTF-8, no control characters.
bool is_printable_name(std::string_view s) {
  return s.size() <= kMaxNameBytes && is_valid_utf8(s) &&
         std::none_of(s.begin(), s.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

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

// The options job traces are read with.
constexpr CsvOptions kTraceCsv{
    .noun = "trace", .example_header = "submit_time_s,duration_s,gpus,cpu_millis,memory_mib"};

// Range-checks the values of one row, throwing with the field's location.
class RowParser {
 public:
  RowParser(const CsvReader& csv,
            const std::array<std::optional<std::size_t>, kColumns.size()>& field_of)
      : csv_(csv), field_of_(field_of) {}

  // The field's index in the row, if the trace has the column (required columns always do).
  std::optional<std::size_t> find(Column c) const { return field_of_[index_of(c)]; }
  std::size_t index(Column c) const { return *find(c); }
  std::string_view text(Column c) const { return csv_.field(index(c)); }

  [[noreturn]] void fail(Column c, std::string message) const {
    csv_.fail(index(c), std::move(message));
  }

  // Seconds, decimals allowed, within [0, max_s].
  double seconds(Column c, double max_s, std::string_view limit_text) const {
    const double v = csv_.number(index(c));
    if (v < 0) fail(c, fmt::format("must not be negative, got {}", text(c)));
    if (v > max_s) fail(c, fmt::format("must be at most {}, got {}", limit_text, text(c)));
    return v;
  }

  std::int64_t integer(Column c, std::int64_t min, std::int64_t max) const {
    return csv_.integer(index(c), min, max);
  }

 private:
  const CsvReader& csv_;
  const std::array<std::optional<std::size_t>, kColumns.size()>& field_of_;
};

}  // namespace

JobTraceReader::JobTraceReader(std::filesystem::path path)
    : path_(std::move(path)), csv_(std::make_unique<CsvReader>(path_, kTraceCsv)) {
  static_assert(kColumns.size() == kColumnCount);
  read_header();
}

JobTraceReader::~JobTraceReader() = default;
JobTraceReader::JobTraceReader(JobTraceReader&&) noexcept = default;
JobTraceReader& JobTraceReader::operator=(JobTraceReader&&) noexcept = default;

void JobTraceReader::read_header() {
  // A column fleetsim does not read (capacity_type, say) would leave the user believing it
  // took effect: the header holds only the columns below.
  std::array<std::string_view, kColumns.size()> names{};
  for (std::size_t c = 0; c < kColumns.size(); ++c) names[c] = kColumns[c].name;
  csv_->check_columns(names);
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    field_of_[c] =
        kColumns[c].required ? csv_->require(kColumns[c].name) : csv_->column(kColumns[c].name);
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
                                         row.text(Column::Submit), last_submit_text_));
  }
  last_submit_ = job.submit;
  last_submit_text_ = row.text(Column::Submit);

  job.duration = from_seconds(row.seconds(Column::Duration, kMaxDurationS, "365 days"));
  job.gpus = static_cast<int>(row.integer(Column::Gpus, 0, kMaxGpus));
  job.cpu_millis = row.integer(Column::Cpu, 0, kMaxCpuMillis);
  job.memory_bytes = row.integer(Column::Memory, 0, kMaxMemoryMib) * kBytesPerMib;
  const std::optional<std::size_t> name = row.find(Column::Name);
  const std::string_view name_text = name ? csv_->field(*name) : std::string_view();
  if (!name_text.empty() && !is_printable_name(name_text))
    row.fail(Column::Name, fmt::format("a job name must be valid UTF-8 of at most {} bytes "
                                       "without control characters",
                                       kMaxNameBytes));
  job.name = name_text.empty() ? fmt::format("job-{}", rows) : std::string(name_text);
  const std::optional<std::size_t> priority = row.find(Column::Priority);
  if (priority && !csv_->field(*priority).empty()) {
    job.priority =
        static_cast<std::int32_t>(row.integer(Column::Priority, kMinPriority, kMaxPriority));
  }
  return job;
}

}  // namespace fleetsim
