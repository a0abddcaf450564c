// A study's summary from its results.csv: per point, the mean and 95% interval over its seeds of
// the cost and of the SLO miss ratio (of the pending time's p99 for a study without requests),
// and the Pareto frontier of the two (both lower is better).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim {

struct PointSummary {
  std::size_t point = 0;
  std::vector<std::string> parameters;  // the point's values, in column order
  std::size_t seeds = 0;
  double cost = 0, cost_half_width = 0;
  std::optional<double> objective;  // mean; nullopt when no seed measured it
  double objective_half_width = 0;
  bool on_frontier = false;
};

struct StudySummary {
  std::vector<std::string> parameter_names;
  std::string objective;  // "sla.miss_ratio" or "pods.pending_seconds.p99"
  std::vector<PointSummary> points;
};

StudySummary summarize_results(const std::filesystem::path& results_csv);
// A table per point, frontier points marked with '*'.
std::string summary_table(const StudySummary& s);
// frontier.csv: the frontier's points, cheapest first.
std::string frontier_csv(const StudySummary& s);

}  // namespace fleetsim
