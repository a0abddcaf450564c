#include "fleetsim/autoscaling/metric_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

namespace {

// A series spanning over ten years is a unit mix-up (milliseconds read as seconds); the bound
// also keeps microseconds far from int64 overflow.
constexpr double kMaxTimeS = 10.0 * 365.0 * 86400.0;
// Samples held in memory: a day at one sample per 10 ms. A series beyond it is not a recorded
// metric but a mistake, and would exhaust memory before it said so.
constexpr std::size_t kMaxSamples = 10'000'000;

constexpr CsvOptions kSeriesCsv{.noun = "metric series", .example_header = "time_s,value"};

// A finite number, not negative, in the current row's `column`.
double non_negative(const CsvReader& csv, std::size_t column) {
  const double v = csv.number(column);
  if (v < 0) csv.fail(column, fmt::format("must not be negative, got {}", csv.field(column)));
  return v;
}

std::vector<MetricSample> read_samples(CsvReader& csv) {
  const std::size_t time_col = csv.require("time_s");
  const std::size_t value_col = csv.require("value");
  std::vector<MetricSample> samples;
  std::string last_time_text;
  while (csv.next_row()) {
    const std::string_view time_text = csv.field(time_col);
    const double t = non_negative(csv, time_col);
    if (t > kMaxTimeS) {
      csv.fail(time_col,
               fmt::format("must be at most {} (ten years), got {}", kMaxTimeS, time_text));
    }
    const SimTime at = fleetsim::at(from_seconds(t));
    if (!samples.empty() && at < samples.back().at) {
      csv.fail(time_col,
               fmt::format("times must not decrease: {} follows {}", time_text, last_time_text));
    }
    const double v = non_negative(csv, value_col);
    if (samples.size() >= kMaxSamples) {
      csv.fail_at(1, "", fmt::format("more than {} samples", kMaxSamples));
    }
    samples.push_back({at, v});
    last_time_text = time_text;
  }
  return samples;
}

}  // namespace

MetricSeries MetricSeries::parse(const std::string& text, const std::string& file_name) {
  CsvReader csv = CsvReader::from_text(text, file_name, kSeriesCsv);
  MetricSeries s;
  s.samples_ = read_samples(csv);
  return s;
}

MetricSeries MetricSeries::load(const std::filesystem::path& path) {
  CsvReader csv(path, kSeriesCsv);
  MetricSeries s;
  s.samples_ = read_samples(csv);
  return s;
}

std::optional<double> MetricSeries::value_at(SimTime t) const {
  // The last sample at or before t: the first sample after t, minus one.
  auto it = std::upper_bound(samples_.begin(), samples_.end(), t,
                             [](SimTime x, const MetricSample& s) { return x < s.at; });
  if (it == samples_.begin()) return std::nullopt;
  return std::prev(it)->value;
}

}  // namespace fleetsim
