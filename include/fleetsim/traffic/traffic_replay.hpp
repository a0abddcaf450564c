// Replay of a recorded request trace (CSV: timestamp, input tokens, output tokens), streamed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/traffic/traffic_source.hpp"

namespace fleetsim {

// The trace layouts, told apart by the header row (column order free; another column is an
// error, but Mooncake's num_prefix_hash_blocks and hash_ids, read past as ignored_columns):
//   Azure     TIMESTAMP,ContextTokens,GeneratedTokens — the Azure LLM inference trace as
//             published: "2023-11-16 18:15:46.6805900" (up to 9 fractional digits, a space or
//             'T' between date and time), trace time measured from the first row.
//   Simple    time_s,input_tokens,output_tokens — seconds (decimals allowed) from the trace start.
//   Mooncake  timestamp_ms,input_length,output_length — the Mooncake (FAST'25) trace converted to
//             CSV: milliseconds from the trace start.
enum class RequestTraceLayout : std::uint8_t { Azure, Simple, Mooncake };

// What a trace holds, from reading it through.
struct RequestTraceSummary {
  RequestTraceLayout layout = RequestTraceLayout::Simple;
  std::int64_t rows = 0;  // data rows
  SimDuration first{};    // trace time of the first row (always 0 for Azure traces)
  SimDuration last{};     // trace time of the last row
  // Columns the layout documents as read past (Mooncake's hash blocks), in header order.
  std::vector<std::string> ignored_columns;
  // With ReplayConfig::run_end: rows whose first arrival comes after it, and the first's line.
  std::int64_t rows_after_end = 0;
  int first_line_after_end = 0;
};

// Reads a trace through once, checking every row; memory stays flat. Throws TraceError with
// file:line:col on a missing or empty file, an unknown header, a malformed timestamp or token
// count, or timestamps that decrease.
RequestTraceSummary scan_request_trace(const std::filesystem::path& trace);

class CsvReader;
class RequestTraceParser;

// Replays a trace. The constructor reads the trace through once (so every error surfaces before
// the simulation starts, and the loop period is known), then the source streams it again one
// row per request.
//
// A row at trace time x (µs, loop k, loop period P) arrives at
//   start + round((k·P + x − trace_offset) · time_scale).
// Rate scaling thins or duplicates rows rather than compressing time: a trace's shape over the
// day is what a replay is for, and time_scale already compresses.
class ReplaySource final : public TrafficSource {
 public:
  // Throws ConfigError (options; a trace_offset past the last row; a loop_period shorter than
  // the replayed span) and TraceError (the file, as scan_request_trace).
  ReplaySource(const ReplayConfig& config, RngStream rng);
  ~ReplaySource() override;
  ReplaySource(ReplaySource&&) noexcept;
  ReplaySource& operator=(ReplaySource&&) noexcept;

  std::optional<Request> next() override;

  const RequestTraceSummary& summary() const { return summary_; }
  // Rows at or after trace_offset, replayed each loop (before rate scaling).
  std::int64_t replayed_rows() const { return replayed_rows_; }
  // The loop period P in trace time (meaningful when looping).
  SimDuration loop_period() const { return micros(period_us_); }

 private:
  // The first loop's arrival of a row at trace time `row_us`, in simulated µs.
  std::int64_t arrival_us(std::int64_t row_us) const;

  std::unique_ptr<CsvReader> csv_;
  std::unique_ptr<RequestTraceParser> parser_;
  RequestTraceSummary summary_;
  std::int64_t replayed_rows_ = 0;
  double time_scale_;
  std::uint32_t whole_copies_;  // floor(rate_scale)
  double extra_copy_;           // rate_scale − floor(rate_scale)
  std::int64_t offset_us_;
  std::int64_t start_us_;
  std::int64_t period_us_ = 0;
  bool loop_;
  std::int64_t loop_index_ = 0;
  Request pending_{};
  std::uint32_t pending_copies_ = 0;
  RngStream rng_;
  bool ended_ = false;
};

}  // namespace fleetsim
