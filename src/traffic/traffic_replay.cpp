#include "fleetsim/traffic/traffic_replay.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetsim/core/csv_reader.hpp"
#include "traffic_checks.hpp"

namespace fleetsim {

namespace {

// Mooncake's prefix-cache columns: fleetsim models no prefix cache, so they are read past.
constexpr std::array<std::string_view, 2> kMooncakeIgnored{"num_prefix_hash_blocks", "hash_ids"};

struct LayoutSpec {
  RequestTraceLayout layout;
  std::string_view name;
  std::array<std::string_view, 3> columns;    // time, input tokens, output tokens
  std::span<const std::string_view> ignored;  // documented, read past with a warning
};

constexpr std::array<LayoutSpec, 3> kLayouts = {{
    {RequestTraceLayout::Azure, "Azure", {"TIMESTAMP", "ContextTokens", "GeneratedTokens"}, {}},
    {RequestTraceLayout::Simple, "simple", {"time_s", "input_tokens", "output_tokens"}, {}},
    {RequestTraceLayout::Mooncake,
     "Mooncake",
     {"timestamp_ms", "input_length", "output_length"},
     kMooncakeIgnored},
}};

constexpr CsvOptions kReplayCsv{.noun = "trace",
                                .example_header = "TIMESTAMP,ContextTokens,GeneratedTokens"};

constexpr std::string_view kExpectedHeaders =
    "TIMESTAMP,ContextTokens,GeneratedTokens (Azure), time_s,input_tokens,output_tokens, or "
    "timestamp_ms,input_length,output_length (Mooncake)";

// A trace spanning over ten years is a unit mistake (as for job traces); the bound also keeps
// nanoseconds inside int64.
constexpr double kMaxTraceS = 10.0 * 365.0 * 86400.0;
constexpr std::int64_t kMaxTraceNs = static_cast<std::int64_t>(kMaxTraceS) * 1'000'000'000;
// int64 nanoseconds since 1970 reach from 1677 to 2262; these bounds stay well inside and cover
// any real trace.
constexpr int kMinYear = 1900;
constexpr int kMaxYear = 2200;
constexpr std::string_view kTimestampShape = "YYYY-MM-DD HH:MM:SS.fffffff";

constexpr std::int64_t kNsPerUs = 1'000;
constexpr std::int64_t kNsPerS = 1'000'000'000;

}  // namespace

// Reads the header of a request trace, tells its layout, and parses rows into trace time and
// tokens, checking order. Holds no per-row allocation: fields are views into the reader's line.
class RequestTraceParser {
 public:
  struct Row {
    std::int64_t time_us;  // trace time, from the trace origin (Azure: the first row)
    std::uint32_t input_tokens;
    std::uint32_t output_tokens;
  };

  explicit RequestTraceParser(CsvReader& csv) : csv_(csv) {
    read_header();
    last_text_.reserve(64);
  }

  RequestTraceLayout layout() const { return kLayouts[layout_].layout; }
  const std::vector<std::string>& ignored_columns() const { return ignored_; }

  // Parses the reader's current row.
  Row parse() {
    const std::size_t time = field_[0];
    const std::string_view time_text = csv_.field(time);
    Row row{};
    std::int64_t ns = 0;
    if (layout() == RequestTraceLayout::Azure) {
      const std::int64_t absolute = azure_timestamp(time);
      if (!origin_ns_) origin_ns_ = absolute;
      if (have_last_ && absolute < last_ns_) decreasing();
      last_ns_ = absolute;
      ns = absolute - *origin_ns_;
      if (ns > kMaxTraceNs) {
        csv_.fail(time, fmt::format("is over 10 years after the first row's {}", first_text_));
      }
      row.time_us = (ns + kNsPerUs / 2) / kNsPerUs;
    } else {
      const bool ms = layout() == RequestTraceLayout::Mooncake;
      const double v = csv_.number(time);
      if (v < 0) csv_.fail(time, fmt::format("must not be negative, got {}", time_text));
      if (v > (ms ? kMaxTraceS * 1e3 : kMaxTraceS)) {
        csv_.fail(time, fmt::format("must be at most 10 years, got {}", time_text));
      }
      if (have_last_ && v < last_value_) decreasing();
      last_value_ = v;
      row.time_us = std::llround(ms ? v * 1e3 : v * 1e6);
    }
    if (!have_last_ && first_text_.empty()) first_text_.assign(time_text);
    have_last_ = true;
    last_text_.assign(time_text);
    row.input_tokens = static_cast<std::uint32_t>(csv_.integer(field_[1], 0, kMaxTokens));
    row.output_tokens = static_cast<std::uint32_t>(csv_.integer(field_[2], 0, kMaxTokens));
    return row;
  }

  // A new pass over the rows (a loop): order checks start over; the Azure origin stays.
  void restart() { have_last_ = false; }

 private:
  void read_header() {
    std::string names;
    for (const std::string& name : csv_.header()) {
      if (!names.empty()) names += ",";
      names += name;
    }
    // The layout whose time column the header names.
    std::optional<std::size_t> found;
    for (std::size_t l = 0; l < kLayouts.size() && !found; ++l) {
      if (csv_.column(kLayouts[l].columns[0])) found = l;
    }
    if (!found) {
      csv_.fail_header("", fmt::format("not a request trace: expected a header with {}; the "
                                       "header is \"{}\"",
                                       kExpectedHeaders, names));
    }
    layout_ = *found;
    // Any other column would be silently dropped: an error naming the layout's columns.
    ignored_ = csv_.check_columns(kLayouts[layout_].columns, kLayouts[layout_].ignored);
    for (std::size_t c = 0; c < 3; ++c) {
      const std::string_view name = kLayouts[layout_].columns[c];
      const std::optional<std::size_t> at = csv_.column(name);
      if (!at) {
        csv_.fail_header(std::string(name),
                         fmt::format("required column of the {} layout is missing (the header "
                                     "is \"{}\")",
                                     kLayouts[layout_].name, names));
      }
      field_[c] = *at;
    }
  }

  [[noreturn]] void decreasing() const {
    csv_.fail(field_[0], fmt::format("timestamps must not decrease: {} after {}",
                                     csv_.field(field_[0]), last_text_));
  }

  // "YYYY-MM-DD HH:MM:SS[.f…]" (a 'T' also separates date and time; up to 9 fractional digits)
  // as nanoseconds since 1970-01-01, the timestamp read as UTC: only differences matter.
  std::int64_t azure_timestamp(std::size_t column) const {
    const std::string_view s = csv_.field(column);
    const auto bad = [&](std::size_t pos, std::string_view what) {
      csv_.fail(
          column,
          fmt::format("malformed timestamp \"{}\": {}; expected {}", s, what, kTimestampShape),
          static_cast<int>(pos));
    };
    const auto digits = [&](std::size_t pos, std::size_t n) {
      int v = 0;
      for (std::size_t i = pos; i < pos + n; ++i) {
        if (i >= s.size()) bad(i, "it ends early");
        if (s[i] < '0' || s[i] > '9') bad(i, fmt::format("'{}' where a digit belongs", s[i]));
        v = v * 10 + (s[i] - '0');
      }
      return v;
    };
    const auto separator = [&](std::size_t pos, char a, char b) {
      if (pos >= s.size()) bad(pos, "it ends early");
      if (s[pos] != a && s[pos] != b) {
        bad(pos, fmt::format("'{}' where '{}' belongs", s[pos], a));
      }
    };
    if (s.empty()) csv_.fail(column, "is empty; expected a timestamp");
    const int year = digits(0, 4);
    separator(4, '-', '-');
    const int month = digits(5, 2);
    separator(7, '-', '-');
    const int day = digits(8, 2);
    separator(10, ' ', 'T');
    const int hour = digits(11, 2);
    separator(13, ':', ':');
    const int minute = digits(14, 2);
    separator(16, ':', ':');
    const int second = digits(17, 2);
    std::int64_t fraction_ns = 0;
    if (s.size() > 19) {
      separator(19, '.', '.');
      const std::size_t n = s.size() - 20;
      if (n == 0) bad(20, "no digits after the decimal point");
      if (n > 9) bad(29, "more than 9 fractional digits");
      std::int64_t scale = kNsPerS;
      for (std::size_t i = 20; i < s.size(); ++i) {
        scale /= 10;
        fraction_ns += digits(i, 1) * scale;
      }
    }
    if (year < kMinYear || year > kMaxYear) {
      bad(0, fmt::format("the year must be between {} and {}", kMinYear, kMaxYear));
    }
    using namespace std::chrono;
    const year_month_day date{std::chrono::year{year},
                              std::chrono::month{static_cast<unsigned>(month)},
                              std::chrono::day{static_cast<unsigned>(day)}};
    if (!date.month().ok()) bad(5, fmt::format("month {} does not exist", month));
    if (!date.ok()) bad(8, fmt::format("day {} does not exist in that month", day));
    if (hour > 23) bad(11, fmt::format("hour {} does not exist", hour));
    if (minute > 59) bad(14, fmt::format("minute {} does not exist", minute));
    if (second > 59) bad(17, fmt::format("second {} does not exist", second));
    const std::int64_t days = sys_days(date).time_since_epoch().count();
    return ((days * 24 + hour) * 60 + minute) * 60 * kNsPerS + second * kNsPerS + fraction_ns;
  }

  CsvReader& csv_;
  std::size_t layout_ = 0;
  std::vector<std::string> ignored_;
  std::array<std::size_t, 3> field_{};  // field index of time, input, output
  std::optional<std::int64_t> origin_ns_;
  bool have_last_ = false;
  std::int64_t last_ns_ = 0;
  double last_value_ = 0;
  std::string last_text_;   // the previous row's time, for the order message
  std::string first_text_;  // the first row's time, for the span message
};

void validate(const ReplayConfig& config) {
  const SourceLocation& where = config.where;
  traffic_checks::within(config.time_scale, kMinReplayScale, kMaxReplayScale, "time_scale", where);
  traffic_checks::within(config.rate_scale, kMinReplayScale, kMaxReplayScale, "rate_scale", where);
  traffic_checks::time_offset(config.trace_offset, "trace_offset", where);
  traffic_checks::time_offset(config.start, "start", where);
  if (config.loop_period) {
    if (*config.loop_period <= SimDuration::zero()) {
      traffic_checks::fail(where, "loop_period",
                           fmt::format("must be positive, got {}{}",
                                       *config.loop_period < SimDuration::zero() ? "-" : "",
                                       format_duration(abs(*config.loop_period))));
    }
    traffic_checks::time_offset(*config.loop_period, "loop_period", where);
  }
}

RequestTraceSummary scan_request_trace(const std::filesystem::path& trace) {
  CsvReader csv(trace, kReplayCsv);
  RequestTraceParser parser(csv);
  RequestTraceSummary summary{.layout = parser.layout()};
  while (csv.next_row()) {
    const RequestTraceParser::Row row = parser.parse();
    if (summary.rows == 0) summary.first = micros(row.time_us);
    summary.last = micros(row.time_us);
    ++summary.rows;
  }
  return summary;
}

ReplaySource::ReplaySource(const ReplayConfig& config, RngStream rng)
    : time_scale_(config.time_scale),
      whole_copies_(0),
      extra_copy_(0),
      offset_us_(config.trace_offset.count()),
      start_us_(config.start.count()),
      loop_(config.loop),
      rng_(rng) {
  validate(config);
  whole_copies_ = static_cast<std::uint32_t>(std::floor(config.rate_scale));
  extra_copy_ = config.rate_scale - whole_copies_;
  csv_ = std::make_unique<CsvReader>(config.trace, kReplayCsv);
  parser_ = std::make_unique<RequestTraceParser>(*csv_);

  // The validation pass: every row checked before the simulation starts.
  summary_.layout = parser_->layout();
  summary_.ignored_columns = parser_->ignored_columns();
  std::int64_t first_replayed = 0;
  std::int64_t last_replayed = 0;
  while (csv_->next_row()) {
    const RequestTraceParser::Row row = parser_->parse();
    if (summary_.rows == 0) summary_.first = micros(row.time_us);
    summary_.last = micros(row.time_us);
    ++summary_.rows;
    if (row.time_us < offset_us_) continue;
    if (replayed_rows_ == 0) first_replayed = row.time_us;
    last_replayed = row.time_us;
    ++replayed_rows_;
    if (config.run_end && arrival_us(row.time_us) > config.run_end->count() &&
        summary_.rows_after_end++ == 0) {
      summary_.first_line_after_end = csv_->line();
    }
  }
  if (replayed_rows_ == 0) {
    traffic_checks::fail(config.where, "trace_offset",
                         fmt::format("{} is past the trace's last request (at {}) in {}",
                                     format_duration(config.trace_offset),
                                     format_duration(summary_.last), csv_->file()));
  }

  const std::int64_t span = last_replayed - offset_us_;
  if (config.loop_period) {
    period_us_ = config.loop_period->count();
    if (loop_ && period_us_ < span) {
      traffic_checks::fail(config.where, "loop_period",
                           fmt::format("{} is shorter than the replayed span of {} in {}: the "
                                       "loops would overlap",
                                       format_duration(*config.loop_period),
                                       format_duration(micros(span)), csv_->file()));
    }
  } else {
    const std::int64_t gaps = replayed_rows_ - 1;
    const std::int64_t mean_gap = gaps > 0 ? (last_replayed - first_replayed + gaps / 2) / gaps : 0;
    period_us_ = span + mean_gap;
    if (loop_ && period_us_ == 0) {
      traffic_checks::fail(config.where, "loop_period",
                           fmt::format("is needed to loop {}: its replayed rows all arrive at one "
                                       "instant, so it has no length of its own",
                                       csv_->file()));
    }
  }

  // The arrival rate after all scaling: within the cap every other pattern has.
  const double window_s = static_cast<double>(loop_ ? period_us_ : span) * time_scale_ / 1e6;
  const double rate = window_s > 0
                          ? static_cast<double>(replayed_rows_) * config.rate_scale / window_s
                          : std::numeric_limits<double>::infinity();
  if (replayed_rows_ > 1 && rate > kMaxTrafficRps) {
    traffic_checks::fail(config.where, "rate_scale",
                         fmt::format("with time_scale {} the replay of {} arrives at {:.0f} "
                                     "requests per second; at most {:.0f}",
                                     config.time_scale, csv_->file(), rate, kMaxTrafficRps));
  }

  csv_->rewind();
  parser_->restart();
}

std::int64_t ReplaySource::arrival_us(std::int64_t row_us) const {
  const std::int64_t trace_us = row_us - offset_us_;
  return start_us_ +
         (time_scale_ == 1 ? trace_us : std::llround(static_cast<double>(trace_us) * time_scale_));
}

ReplaySource::~ReplaySource() = default;
ReplaySource::ReplaySource(ReplaySource&&) noexcept = default;
ReplaySource& ReplaySource::operator=(ReplaySource&&) noexcept = default;

std::optional<Request> ReplaySource::next() {
  if (ended_) return std::nullopt;
  if (pending_copies_ > 0) {
    --pending_copies_;
    return pending_;
  }
  const auto horizon_us = kTrafficHorizon.time_since_epoch().count();
  while (true) {
    if (!csv_->next_row()) {
      if (!loop_) break;
      csv_->rewind();
      parser_->restart();
      ++loop_index_;
      continue;
    }
    const RequestTraceParser::Row row = parser_->parse();
    if (row.time_us < offset_us_) continue;
    std::uint32_t copies = whole_copies_;
    if (extra_copy_ > 0 && rng_.uniform() < extra_copy_) ++copies;
    if (copies == 0) continue;
    const std::int64_t trace_us = loop_index_ * period_us_ + (row.time_us - offset_us_);
    const std::int64_t scaled =
        time_scale_ == 1 ? trace_us : std::llround(static_cast<double>(trace_us) * time_scale_);
    if (scaled > horizon_us - start_us_) break;
    pending_ = Request{.arrival = at(micros(start_us_ + scaled)),
                       .input_tokens = row.input_tokens,
                       .output_tokens = row.output_tokens};
    pending_copies_ = copies - 1;
    return pending_;
  }
  ended_ = true;
  return std::nullopt;
}

}  // namespace fleetsim
