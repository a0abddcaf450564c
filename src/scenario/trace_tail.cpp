#include "fleetsim/scenario/trace_tail.hpp"

#include <fmt/format.h>

#include <utility>

namespace fleetsim {

void count_row(TraceTail& tail, SimDuration at, int line, SimDuration duration) {
  ++tail.rows;
  // The run handles what happens at its last instant (Simulation::run_until is inclusive).
  if (at <= duration) return;
  if (tail.after_end++ == 0) tail.first_line = line;
}

void warn_rows_after_end(const TraceTail& tail, const std::filesystem::path& trace,
                         std::string field, SimDuration duration, WarningLog& warnings) {
  if (tail.after_end == 0) return;
  warnings.add(WarningCode::TraceRowsAfterEnd,
               SourceLocation{.file = trace.string(), .line = tail.first_line, .col = 1},
               std::move(field),
               fmt::format("{} of the trace's {} rows start after the run ends (duration {}), the "
                           "first at line {}: they are never replayed",
                           tail.after_end, tail.rows, format_duration(duration), tail.first_line));
}

}  // namespace fleetsim
