#include "fleetsim/study/study_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/report/compare.hpp"
#include "fleetsim/report/number_format.hpp"
#include "fleetsim/report/text_table.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kCost = "cost.total_usd";

struct Samples {
  std::vector<std::string> parameters;
  std::vector<double> cost, miss, pending;
};

std::string decimal(double x) {
  std::string out;
  append_decimal(out, x, /*keep_point=*/false);
  return out;
}

}  // namespace

StudySummary summarize_results(const std::filesystem::path& results_csv) {
  CsvReader csv(results_csv);
  StudySummary out;
  const std::size_t first_metric = csv.require(compared_metrics().front());
  for (std::size_t c = 2; c < first_metric; ++c) out.parameter_names.push_back(csv.header()[c]);
  const std::size_t cost = csv.require(kCost);
  const std::size_t miss = csv.require("sla.miss_ratio");
  const std::size_t pending = csv.require("pods.pending_seconds.p99");
  const std::size_t point_col = csv.require("point");
  std::map<std::size_t, Samples> by_point;
  auto add = [&](std::vector<double>& to, std::size_t column) {
    if (!csv.field(column).empty()) to.push_back(csv.number(column));
  };
  while (csv.next_row()) {
    Samples& s = by_point[static_cast<std::size_t>(csv.integer(point_col, 0, INT64_MAX))];
    if (s.parameters.empty())
      for (std::size_t c = 2; c < first_metric; ++c) s.parameters.emplace_back(csv.field(c));
    add(s.cost, cost);
    add(s.miss, miss);
    add(s.pending, pending);
  }
  const bool any_requests = std::any_of(by_point.begin(), by_point.end(),
                                        [](const auto& p) { return !p.second.miss.empty(); });
  out.objective = any_requests ? "sla.miss_ratio" : "pods.pending_seconds.p99";
  for (auto& [point, s] : by_point) {
    PointSummary p{.point = point, .parameters = s.parameters, .seeds = s.cost.size()};
    if (!s.cost.empty()) {
      const MeanInterval c = mean_interval(s.cost);
      p.cost = c.mean;
      p.cost_half_width = c.half_width;
    }
    const std::vector<double>& objective = any_requests ? s.miss : s.pending;
    if (!objective.empty()) {
      const MeanInterval o = mean_interval(objective);
      p.objective = o.mean;
      p.objective_half_width = o.half_width;
    }
    out.points.push_back(std::move(p));
  }
  // A point is on the frontier when no other is at least as good on both and better on one.
  for (PointSummary& a : out.points) {
    if (!a.objective) continue;
    a.on_frontier = std::none_of(out.points.begin(), out.points.end(), [&](const PointSummary& b) {
      return b.objective && b.cost <= a.cost && *b.objective <= *a.objective &&
             (b.cost < a.cost || *b.objective < *a.objective);
    });
  }
  return out;
}

std::string summary_table(const StudySummary& s) {
  std::vector<std::string> header{"point"};
  header.insert(header.end(), s.parameter_names.begin(), s.parameter_names.end());
  for (std::string_view column : {"seeds", "cost.total_usd ± 95%"}) header.emplace_back(column);
  header.push_back(s.objective + " ± 95%");
  header.emplace_back("frontier");
  std::vector<std::vector<std::string>> rows{header};
  for (const PointSummary& p : s.points) {
    std::vector<std::string> row{std::to_string(p.point)};
    row.insert(row.end(), p.parameters.begin(), p.parameters.end());
    row.push_back(std::to_string(p.seeds));
    row.push_back(fmt::format("{:.6g} ± {:.3g}", p.cost, p.cost_half_width));
    row.push_back(p.objective ? fmt::format("{:.6g} ± {:.3g}", *p.objective, p.objective_half_width)
                              : std::string("n/a"));
    row.emplace_back(p.on_frontier ? "*" : "");
    rows.push_back(std::move(row));
  }
  return text_table(rows, 1 + s.parameter_names.size());
}

std::string frontier_csv(const StudySummary& s) {
  std::string out = "point";
  for (const std::string& name : s.parameter_names) {
    out += ',';
    out += csv_field(name);
  }
  out += fmt::format(",seeds,{0}_mean,{0}_ci95,{1}_mean,{1}_ci95\n", kCost, s.objective);
  std::vector<const PointSummary*> frontier;
  for (const PointSummary& p : s.points)
    if (p.on_frontier) frontier.push_back(&p);
  std::stable_sort(frontier.begin(), frontier.end(),
                   [](const PointSummary* a, const PointSummary* b) { return a->cost < b->cost; });
  for (const PointSummary* p : frontier) {
    out += std::to_string(p->point);
    for (const std::string& v : p->parameters) {
      out += ',';
      out += csv_field(v);
    }
    out += fmt::format(",{},{},{},{},{}\n", p->seeds, decimal(p->cost), decimal(p->cost_half_width),
                       decimal(*p->objective), decimal(p->objective_half_width));
  }
  return out;
}

}  // namespace fleetsim
