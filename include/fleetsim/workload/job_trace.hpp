// Streams job arrivals from a CSV trace (submit time, duration, GPUs, CPU, memory, name, priority).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// One job submission. A scenario's Job template supplies everything the trace does not.
struct JobArrival {
  SimTime submit;
  SimDuration duration{};
  int gpus = 0;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_bytes = 0;
  std::string name;                      // the trace's, or "job-<data row>"
  std::optional<std::int32_t> priority;  // nullopt: the template's priority stays
  int line = 0;                          // 1-based line in the trace file, for messages
};

// Reads a trace one line at a time, so memory stays flat in trace length (DESIGN.md §3).
//
// Format: a header row naming the columns, in any order. Required: submit_time_s, duration_s
// (seconds, decimals allowed), gpus, cpu_millis, memory_mib (whole numbers). Optional: name,
// priority. Any other column is an error. Submit times must not decrease. Fields may be quoted
// ("a,b" with "" for a quote). CRLF endings, a UTF-8 BOM and trailing blank lines are accepted.
//
// Every problem throws TraceError naming file:line:col (col = where the field starts) and the
// column; that includes a missing or empty file and a trace with no rows.
class CsvReader;

class JobTraceReader {
 public:
  explicit JobTraceReader(std::filesystem::path path);
  ~JobTraceReader();
  JobTraceReader(JobTraceReader&&) noexcept;
  JobTraceReader& operator=(JobTraceReader&&) noexcept;

  // The next arrival, or nullopt at the end of the trace.
  std::optional<JobArrival> next();

  const std::filesystem::path& path() const { return path_; }

 private:
  // submit_time_s, duration_s, gpus, cpu_millis, memory_mib, name, priority.
  static constexpr std::size_t kColumnCount = 7;

  void read_header();
  JobArrival parse_row();

  std::filesystem::path path_;
  std::unique_ptr<CsvReader> csv_;                                   // fleetsim/core/csv_reader.hpp
  std::array<std::optional<std::size_t>, kColumnCount> field_of_{};  // field index per column
  bool done_ = false;
  SimTime last_submit_;
  std::string last_submit_text_;
};

}  // namespace fleetsim
