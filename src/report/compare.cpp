#include "fleetsim/report/compare.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "fleetsim/report/check.hpp"
#include "fleetsim/report/text_table.hpp"

namespace fleetsim {

const std::vector<std::string_view>& compared_metrics() {
  static const std::vector<std::string_view> metrics{"cost.total_usd",
                                                     "cost.on_demand_usd",
                                                     "cost.spot_usd",
                                                     "gpu.utilization",
                                                     "gpu.provisioned_gpu_hours",
                                                     "sla.requests",
                                                     "sla.miss_ratio",
                                                     "sla.latency_ms.p50",
                                                     "sla.latency_ms.p99",
                                                     "sla.ttft_ms.p99",
                                                     "pods.pending_seconds.p99",
                                                     "nodes.launched",
                                                     "nodes.peak",
                                                     "jobs.completed",
                                                     "jobs.lost_gpu_hours"};
  return metrics;
}

double student_t975(std::size_t df) {
  // Two-sided 95% critical values for 1 to 30 degrees of freedom; the normal's beyond.
  static constexpr std::array<double, 30> kT{
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= kT.size() ? kT[df - 1] : 1.960;
}

MeanInterval mean_interval(std::span<const double> xs) {
  MeanInterval s{.n = xs.size()};
  for (double x : xs) s.mean += x;
  s.mean /= static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : xs) ss += (x - s.mean) * (x - s.mean);
    const double sd = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.half_width = student_t975(s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
  }
  return s;
}

namespace {

std::optional<MeanInterval> summarize(const CompareSide& side, std::string_view metric) {
  std::vector<double> xs;
  for (const nlohmann::json& r : side.reports)
    if (auto v = report_metric(r, metric)) xs.push_back(*v);
  if (xs.empty()) return std::nullopt;
  return mean_interval(xs);
}

std::string cell(const std::optional<MeanInterval>& s) {
  if (!s) return "n/a";
  if (s->n == 1) return fmt::format("{:.6g}", s->mean);
  return fmt::format("{:.6g} ± {:.3g}", s->mean, s->half_width);
}

std::string delta(const std::optional<MeanInterval>& base, const std::optional<MeanInterval>& s) {
  if (!base || !s) return "n/a";
  const double d = s->mean - base->mean;
  if (base->mean == 0) return fmt::format("{:+.6g}", d);
  return fmt::format("{:+.2f}%", d / std::abs(base->mean) * 100);
}

}  // namespace

std::string compare_table(const std::vector<CompareSide>& sides) {
  // Columns: metric, then per side its value and (after the first) its change.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"metric"};
  for (std::size_t i = 0; i < sides.size(); ++i) {
    header.push_back(fmt::format("{} (n={})", sides[i].name, sides[i].reports.size()));
    if (i > 0) header.push_back("change");
  }
  rows.push_back(header);
  for (std::string_view metric : compared_metrics()) {
    std::vector<std::string> row{std::string(metric)};
    const std::optional<MeanInterval> base = summarize(sides.front(), metric);
    for (std::size_t i = 0; i < sides.size(); ++i) {
      const std::optional<MeanInterval> s = i == 0 ? base : summarize(sides[i], metric);
      row.push_back(cell(s));
      if (i > 0) row.push_back(delta(base, s));
    }
    rows.push_back(std::move(row));
  }
  return text_table(rows);
}

}  // namespace fleetsim
