// Trace rows that start after the run ends are never replayed: one warning per trace says how
// many, and where the first is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "fleetsim/core/time.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

struct TraceTail {
  std::int64_t rows = 0;       // rows of the trace
  std::int64_t after_end = 0;  // of which start after the run's end
  int first_line = 0;          // the first of those, 1-based
};

// Counts one row at trace time `at` on `line`.
void count_row(TraceTail& tail, SimDuration at, int line, SimDuration duration);

// A trace's rows, each with `at` and `line` (the spot market's changes).
template <class Row>
TraceTail tail_of(std::span<const Row> rows, SimDuration duration) {
  TraceTail tail;
  for (const Row& r : rows) count_row(tail, r.at, r.line, duration);
  return tail;
}

// The warning, at the first late row, when the trace has any; `field` names the scenario key
// that gives the trace (spot.prices, jobs[0].trace).
void warn_rows_after_end(const TraceTail& tail, const std::filesystem::path& trace,
                         std::string field, SimDuration duration, WarningLog& warnings);

}  // namespace fleetsim
