#include "fleetsim/report/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "fleetsim/report/check.hpp"
#include "fleetsim/report/number_format.hpp"

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
                                                     "jobs.lost_gpu_hours",
                                                     "efficiency.lower_bound_usd",
                                                     "efficiency.gap_share"};
  return metrics;
}

const std::vector<CompareRow>& compare_rows() {
  using enum FigureKind;
  static const std::vector<CompareRow> rows{
      {"cost.total_usd", Usd},
      {"cost.on_demand_usd", Usd},
      {"cost.spot_usd", Usd},
      {"headroom.usd", Usd},
      {"reservations.unused_usd", Usd},
      {"efficiency.lower_bound_usd", Usd},
      {"efficiency.gap_share", Ratio},
      {"gpu.utilization", Ratio},
      {"gpu.provisioned_gpu_hours", Hours},
      {"sla.requests", Count},
      {"sla.miss_ratio", Ratio},
      {"sla.ttft_miss_ratio", Ratio},
      {"sla.e2e_miss_ratio", Ratio},
      {"sla.drop_ratio", Ratio},
      {"sla.latency_ms.p50", Quantile},
      {"sla.latency_ms.p99", Quantile},
      {"sla.ttft_ms.p99", Quantile},
      {"sla.tpot_ms.p99", Quantile},
      {"pods.pending_seconds.p99", Quantile},
      {"pods.evicted", Count},
      {"pods.preempted", Count},
      {"nodes.launched", Count},
      {"nodes.peak", Count},
      {"nodes.spot_interruption_notices", Count},
      {"nodes.spot_interruptions", Count},
      {"disruption.commands", Count},
      {"jobs.completed", Count},
      {"jobs.lost_gpu_hours", Hours},
  };
  return rows;
}

std::optional<double> compare_metric(const nlohmann::json& report, std::string_view metric) {
  if (metric == "disruption.commands") {
    // Absent without Karpenter's disruption controller: n/a, not 0.
    auto d = report.find("disruption");
    if (d == report.end() || !d->is_object() || !d->contains("commands_by_method")) return {};
    double total = 0;
    for (const nlohmann::json& count : (*d)["commands_by_method"])
      if (count.is_number()) total += count.get<double>();
    return total;
  }
  if (metric == "nodes.spot_interruptions") {
    // terminated_by_reason lists only the reasons that happened.
    if (!report_metric(report, "nodes.launched")) return {};
    return report_metric(report, "nodes.terminated_by_reason.spot_interruption").value_or(0);
  }
  return report_metric(report, metric);
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
  // Equal samples have no spread, though their mean may differ from them in the last bit.
  const bool agree = std::all_of(xs.begin(), xs.end(), [&](double x) { return x == xs.front(); });
  if (s.n > 1 && !agree) {
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
    if (auto v = compare_metric(r, metric)) xs.push_back(*v);
  if (xs.empty()) return std::nullopt;
  return mean_interval(xs);
}

// A figure at its row's precision. A mean of counts over seeds may be fractional: one decimal.
std::string figure(double x, FigureKind kind) {
  switch (kind) {
    case FigureKind::Usd:
      return fmt::format("{:.2f}", round_report(x));
    case FigureKind::Count:
      return x == std::round(x) ? fmt::format("{:.0f}", x) : fmt::format("{:.1f}", x);
    case FigureKind::Ratio: {
      std::string out;
      append_decimal(out, x, /*keep_point=*/false);
      return out;
    }
    case FigureKind::Hours:
      return fmt::format("{:.2f}", round_report(x));
    case FigureKind::Quantile:
      return format_significant(x, 3);
  }
  return {};
}

std::string signed_figure(double x, FigureKind kind) {
  const std::string f = figure(x, kind);
  return f.starts_with('-') ? f : "+" + f;
}

// The change of a side's mean against the first side's.
std::string change(const std::optional<MeanInterval>& base, const std::optional<MeanInterval>& s,
                   FigureKind kind) {
  if (!base || !s) return "n/a";
  const double d = s->mean - base->mean;
  if (base->mean == 0) return signed_figure(d, kind);
  // Two quantiles each within 1% differ by a percentage known to about two points: whole ones.
  const double percent = d / std::abs(base->mean) * 100;
  if (kind == FigureKind::Quantile) return fmt::format("{:+.0f}%", percent);
  return fmt::format("{:+.2f}%", percent);
}

}  // namespace

std::vector<CompareLine> compare_lines(const std::vector<CompareSide>& sides) {
  std::vector<CompareLine> lines;
  for (const CompareRow& row : compare_rows()) {
    CompareLine line{.metric = row.metric};
    const std::optional<MeanInterval> base = summarize(sides.front(), row.metric);
    for (std::size_t i = 0; i < sides.size(); ++i) {
      const std::optional<MeanInterval> s = i == 0 ? base : summarize(sides[i], row.metric);
      CompareCell cell;
      if (s) {
        cell.available = true;
        cell.seeds = s->n;
        cell.mean = figure(s->mean, row.kind);
        // Seeds that agree have no spread to show; a 95% half-width is worth two digits.
        if (s->half_width > 0) cell.half_width = format_significant(s->half_width, 2);
      }
      if (i > 0) cell.change = change(base, s, row.kind);
      line.cells.push_back(std::move(cell));
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string compare_table(const std::vector<CompareSide>& sides) {
  return format_compare(sides, CompareFormat::Table);
}

}  // namespace fleetsim
