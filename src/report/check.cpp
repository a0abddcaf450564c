#include "fleetsim/report/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace fleetsim {

std::vector<Tolerance> default_tolerances() {
  return {
      {.metric = "cost.total_usd", .relative = 0.02},
      {.metric = "sla.miss_ratio", .absolute = 0.002},
      {.metric = "sla.dropped", .relative = 0.10},
      {.metric = "sla.latency_ms.p99", .relative = 0.10},
      {.metric = "sla.ttft_ms.p99", .relative = 0.10},
      {.metric = "gpu.utilization", .worse_when_higher = false, .absolute = 0.02},
      {.metric = "pods.pending_seconds.p99", .relative = 0.10, .absolute = 1.0},
      {.metric = "jobs.completed", .worse_when_higher = false, .relative = 0.01},
      {.metric = "jobs.lost_gpu_hours", .relative = 0.10},
  };
}

bool CheckResult::failed() const {
  return std::any_of(metrics.begin(), metrics.end(),
                     [](const MetricCheck& m) { return m.verdict == Verdict::Regression; });
}

std::optional<double> report_metric(const nlohmann::json& report, std::string_view path) {
  if (path.empty()) return report.is_number() ? std::optional(report.get<double>()) : std::nullopt;
  if (!report.is_object()) return std::nullopt;
  // A key may hold dots ("g5.2xlarge"): the longest key that matches wins.
  std::optional<double> found;
  std::size_t longest = 0;
  for (const auto& [key, value] : report.items()) {
    const bool whole = path == key;
    if (key.size() <= longest ||
        (!whole && !(path.starts_with(key) && path.size() > key.size() && path[key.size()] == '.')))
      continue;
    if (auto v = report_metric(value, whole ? "" : path.substr(key.size() + 1))) {
      found = v;
      longest = key.size();
    }
  }
  return found;
}

namespace {

// "+2%", "+0.002", "+10% or +1"
std::string limit_text(const Tolerance& t) {
  const char sign = t.worse_when_higher ? '+' : '-';
  std::vector<std::string> parts;
  if (t.relative > 0) parts.push_back(fmt::format("{}{:g}%", sign, t.relative * 100));
  if (t.absolute > 0 || parts.empty()) parts.push_back(fmt::format("{}{:g}", sign, t.absolute));
  return fmt::format("{}", fmt::join(parts, " or "));
}

std::string input_digest(const nlohmann::json& report, const std::string& file) {
  const nlohmann::json* files = nullptr;
  if (auto in = report.find("inputs"); in != report.end() && in->is_object())
    if (auto f = in->find("files"); f != in->end() && f->is_object()) files = &*f;
  if (files == nullptr) return {};
  auto it = files->find(file);
  return it != files->end() && it->is_string() ? it->get<std::string>() : std::string("absent");
}

std::vector<std::string> changed_inputs(const nlohmann::json& baseline,
                                        const nlohmann::json& current) {
  std::vector<std::string> out;
  if (baseline.value("fleetsim", "") != current.value("fleetsim", ""))
    out.push_back(fmt::format("fleetsim version ({} → {})", baseline.value("fleetsim", "?"),
                              current.value("fleetsim", "?")));
  std::vector<std::string> names;
  for (const nlohmann::json* r : {&baseline, &current})
    if (auto in = r->find("inputs"); in != r->end() && in->is_object())
      if (auto f = in->find("files"); f != in->end() && f->is_object())
        for (const auto& [name, digest] : f->items()) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names)
    if (input_digest(baseline, name) != input_digest(current, name)) out.push_back(name);
  return out;
}

}  // namespace

CheckResult check_report(const nlohmann::json& baseline, const nlohmann::json& current,
                         const std::vector<Tolerance>& tolerances, const std::vector<Gate>& gates) {
  CheckResult out;
  for (const Tolerance& t : tolerances) {
    MetricCheck m{.metric = t.metric,
                  .baseline = report_metric(baseline, t.metric),
                  .current = report_metric(current, t.metric),
                  .limit = limit_text(t)};
    if (m.baseline && !m.current) {
      // Measured before and not now (null or gone): the check cannot hold, so it fails.
      m.verdict = Verdict::Regression;
    } else if (!m.baseline || !m.current) {
      m.verdict = Verdict::Missing;
    } else {
      const double worse =
          t.worse_when_higher ? *m.current - *m.baseline : *m.baseline - *m.current;
      const double allowed = std::max(t.relative * std::abs(*m.baseline), t.absolute);
      // A tolerance of 0 still lets rounding in the report's sixth decimal through.
      m.verdict = worse > allowed + 1e-9 * std::max(1.0, std::abs(*m.baseline))
                      ? Verdict::Regression
                      : Verdict::Ok;
    }
    out.metrics.push_back(std::move(m));
  }
  for (const Gate& g : gates) {
    MetricCheck m{.metric = g.metric, .current = report_metric(current, g.metric), .gate = true};
    std::vector<std::string> bounds;
    if (g.min) bounds.push_back(fmt::format("≥ {:g}", *g.min));
    if (g.max) bounds.push_back(fmt::format("≤ {:g}", *g.max));
    m.limit = fmt::format("{}", fmt::join(bounds, ", "));
    // A gate on a metric the report lacks fails: the gate cannot be shown to hold.
    m.verdict = !m.current || (g.min && *m.current < *g.min) || (g.max && *m.current > *g.max)
                    ? Verdict::Regression
                    : Verdict::Ok;
    out.metrics.push_back(std::move(m));
  }
  out.changed_inputs = changed_inputs(baseline, current);
  return out;
}

}  // namespace fleetsim
