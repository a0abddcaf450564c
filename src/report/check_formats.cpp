// fleetsim check's outputs: a table for the terminal, Markdown for a pull request, JUnit XML.
#include <fmt/format.h>

#include <cmath>

#include "fleetsim/report/check.hpp"

namespace fleetsim {

namespace {

std::string value(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : std::string("n/a");
}

std::string change(const MetricCheck& m) {
  if (!m.baseline || !m.current) return "";
  const double d = *m.current - *m.baseline;
  if (*m.baseline == 0) return fmt::format("{:+.6g}", d);
  return fmt::format("{:+.6g} ({:+.2f}%)", d, d / std::abs(*m.baseline) * 100);
}

std::string verdict(const MetricCheck& m) {
  switch (m.verdict) {
    case Verdict::Ok:
      return "ok";
    case Verdict::Regression:
      if (m.gate) return "FAILED";
      return m.current ? "REGRESSION" : "REGRESSION (not in the new report)";
    case Verdict::Missing:
      return "not in both reports";
  }
  return "";
}

std::string summary_line(const CheckResult& r) {
  std::size_t failed = 0;
  for (const MetricCheck& m : r.metrics) failed += m.verdict == Verdict::Regression ? 1 : 0;
  std::string out = failed == 0 ? "fleetsim check: every metric within its tolerance"
                                : fmt::format("fleetsim check: {} metric{} failed", failed,
                                              failed == 1 ? "" : "s");
  if (!r.changed_inputs.empty())
    out += fmt::format(
        "; inputs changed since the baseline ({}), so differences may come from "
        "them rather than from fleetsim's behaviour",
        fmt::join(r.changed_inputs, ", "));
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string check_table(const CheckResult& r) {
  std::size_t width = 6;
  for (const MetricCheck& m : r.metrics)
    width = std::max(width, m.metric.size() + (m.gate ? 5 : 0));
  std::string out = fmt::format("{:<{}}  {:>12}  {:>12}  {:>22}  {:>12}  {}\n", "metric", width,
                                "baseline", "new", "change", "limit", "verdict");
  for (const MetricCheck& m : r.metrics)
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>22}  {:>12}  {}\n",
                       (m.gate ? "gate " : "") + m.metric, width, m.gate ? "" : value(m.baseline),
                       value(m.current), change(m), m.limit, verdict(m));
  return out + summary_line(r) + "\n";
}

std::string check_markdown(const CheckResult& r) {
  std::string out = fmt::format(
      "### {}\n\n| metric | baseline | new | change | limit | verdict |\n"
      "|---|---:|---:|---:|---:|---|\n",
      r.failed() ? ":x: fleetsim check failed" : ":white_check_mark: fleetsim check passed");
  for (const MetricCheck& m : r.metrics)
    out += fmt::format("| {}`{}` | {} | {} | {} | {} | {} |\n", m.gate ? "gate " : "", m.metric,
                       m.gate ? "" : value(m.baseline), value(m.current), change(m), m.limit,
                       m.verdict == Verdict::Regression ? "**" + verdict(m) + "**" : verdict(m));
  return out + "\n" + summary_line(r) + "\n";
}

std::string check_junit(const CheckResult& r) {
  std::size_t failures = 0;
  for (const MetricCheck& m : r.metrics) failures += m.verdict == Verdict::Regression ? 1 : 0;
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"fleetsim "
      "check\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
      r.metrics.size(), failures);
  for (const MetricCheck& m : r.metrics) {
    const std::string name = xml_escape((m.gate ? "gate " : "") + m.metric);
    out += fmt::format("    <testcase classname=\"fleetsim.check\" name=\"{}\"", name);
    if (m.verdict != Verdict::Regression) {
      out += "/>\n";
      continue;
    }
    out += fmt::format(
        ">\n      <failure message=\"{}\">baseline {}, new {}, limit {}</failure>\n"
        "    </testcase>\n",
        xml_escape(fmt::format("{} {}", m.metric, verdict(m))), value(m.baseline), value(m.current),
        xml_escape(m.limit));
  }
  return out + "  </testsuite>\n</testsuites>\n";
}

}  // namespace fleetsim
