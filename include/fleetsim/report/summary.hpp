// The short table `fleetsim run` prints on the terminal, read from report.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fleetsim {

// How many NodePools the summary lists by cost; the rest are in report.json.
inline constexpr std::size_t kSummaryTopNodepools = 5;

// An aligned table: total cost and its on-demand/spot split, the costliest NodePools, GPU-hours
// provisioned and allocated, pending-time percentiles, nodes launched and peak, jobs completed,
// and unschedulable pods with the first reason. Reads only the report, so it also works on a
// report loaded from disk; a missing key reads as zero. Ends with a newline.
std::string format_summary(const nlohmann::ordered_json& report);

}  // namespace fleetsim
