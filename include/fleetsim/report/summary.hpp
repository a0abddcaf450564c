// The short table `fleetsim run` prints on the terminal, read from a RunResult.
#pragma once

#include <string>

#include "fleetsim/runner/run_result.hpp"

namespace fleetsim {

// How many NodePools the summary lists by cost; the rest are in report.json.
inline constexpr std::size_t kSummaryTopNodepools = 5;

// An aligned table: total cost and its on-demand/spot split, the costliest NodePools, GPU-hours
// provisioned, allocated and busy, requests and SLO misses when there are services, pending-time
// percentiles, nodes launched and peak, jobs completed, and unschedulable pods with the first
// reason. Figures are rounded as report.json rounds them before they are formatted, so the table
// agrees with the file; quantiles from the sketch show three significant digits and say they are
// within 1%. Ends with a newline.
std::string format_summary(const RunResult& result);

}  // namespace fleetsim
