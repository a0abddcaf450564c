// A recorded metric series (CSV time_s,value) that stands in for a metric's query result.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

struct MetricSample {
  SimTime at;
  double value = 0;
};

// The samples of a series, sorted by time. The value in effect at t is the last sample at or
// before t; before the first sample there is none (the metric is missing).
class MetricSeries {
 public:
  // Format: a header row naming the columns, in any order; `time_s` (seconds, decimals allowed,
  // not negative) and `value` (a finite number, not negative) are required, others are ignored.
  // Times must not decrease; of samples at the same time the last one counts. Read by CsvReader:
  // quoted fields, CRLF line ends, a UTF-8 BOM and trailing blank lines are accepted. Every
  // problem throws TraceError naming file:line:col.
  static MetricSeries load(const std::filesystem::path& path);
  // As load(), from text already in memory; `file_name` is used in messages.
  static MetricSeries parse(const std::string& text, const std::string& file_name);

  std::optional<double> value_at(SimTime t) const;
  const std::vector<MetricSample>& samples() const { return samples_; }
  SimTime last_time() const { return samples_.back().at; }

 private:
  std::vector<MetricSample> samples_;  // never empty once loaded
};

}  // namespace fleetsim
