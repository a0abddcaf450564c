// `fleetsim compare`: headline metrics of several configurations side by side, each the mean
// over its seeds with a 95% interval, and each side's change against the first.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

// One configuration: its reports, one per seed.
struct CompareSide {
  std::string name;
  std::vector<nlohmann::json> reports;
};

// The headline report.json paths a sweep's results.csv holds, in order (a subset of
// compare_rows(), kept as it is so that existing results files resume).
const std::vector<std::string_view>& compared_metrics();

// How a row's figures are printed: with the precision they have.
enum class FigureKind {
  Usd,       // cents
  Count,     // an integer (a mean over seeds may have one decimal)
  Ratio,     // as report.json rounds it (six decimals at most)
  Hours,     // two decimals
  Quantile,  // from the 1% sketch: three significant digits
};

struct CompareRow {
  std::string_view metric;  // a report.json path, or a figure derived from one (compare_metric)
  FigureKind kind;
};

// The rows `fleetsim compare` shows, in order.
const std::vector<CompareRow>& compare_rows();

// A row's figure in one report: its report.json path, or for the derived ones,
// disruption.commands (the sum of commands_by_method) and nodes.spot_interruptions (nodes
// terminated by spot_interruption). nullopt where the report does not have it.
std::optional<double> compare_metric(const nlohmann::json& report, std::string_view metric);

// Student's t at 97.5% for `df` degrees of freedom (df ≥ 1): the half-width of a 95% interval
// is t × s / √n.
double student_t975(std::size_t df);

// The mean of samples and the half-width of its 95% interval (t × s / √n; 0 for one sample).
struct MeanInterval {
  std::size_t n = 0;
  double mean = 0;
  double half_width = 0;
};
MeanInterval mean_interval(std::span<const double> xs);  // xs not empty

// One side's figure in one row, as printed: empty strings where there is nothing to show.
struct CompareCell {
  bool available = false;  // false: no report of the side has the figure (n/a)
  std::string mean;        // the mean, at the row's precision
  std::string half_width;  // 2 significant digits; empty with one seed or when seeds agree
  std::string change;      // against the first side: "+19.55%", or the difference when the
                           // first side's mean is 0; empty for the first side, n/a without
  std::size_t seeds = 0;   // reports of the side that have the figure
};
struct CompareLine {
  std::string_view metric;
  std::vector<CompareCell> cells;  // one per side
};
// Each row of compare_rows() with a cell per side (sides not empty).
std::vector<CompareLine> compare_lines(const std::vector<CompareSide>& sides);

enum class CompareFormat { Table, Csv, Json, Markdown };

// The comparison in a format. Table (the terminal) and Markdown: one row per metric, per side
// its mean (± the 95% half-width where its seeds differ) and, after the first, the change.
// Csv: one line per metric and side (metric,side,seeds,mean,half_width,change). Json: the sides
// and, per metric, each side's figures as numbers (null for n/a).
std::string format_compare(const std::vector<CompareSide>& sides, CompareFormat format);

// format_compare(sides, CompareFormat::Table).
std::string compare_table(const std::vector<CompareSide>& sides);

}  // namespace fleetsim
