// `fleetsim check`: a new report against a committed baseline, metric by metric, each within a
// tolerance in the direction that makes it worse, plus a scenario's absolute gates.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

// How far a metric may move in the direction that makes it worse: the larger of `relative` ×
// |baseline| and `absolute`. Moves the other way always pass.
struct Tolerance {
  std::string metric;  // a report.json path: "cost.total_usd", "sla.by_service.llm.miss_ratio"
  bool worse_when_higher = true;
  double relative = 0;  // 0.02 = 2%
  double absolute = 0;
  SourceLocation where;  // in a tolerances file; empty for a default
};

// Cost may rise 2%, the miss ratio 0.2 points, p99 latencies 10%, pod pending p99 10% (or 1 s);
// GPU utilization may fall 2 points and completed Jobs 1%.
std::vector<Tolerance> default_tolerances();

// Regression includes a metric the baseline has and the new report lacks (or has as null);
// Missing is one the baseline lacks, shown but not failed.
enum class Verdict { Ok, Regression, Missing };

struct MetricCheck {
  std::string metric;
  std::optional<double> baseline;  // nullopt: absent or null in that report
  std::optional<double> current;
  std::string limit;  // "+2%", "-0.02", "≤ 0.01"
  Verdict verdict = Verdict::Ok;
  bool gate = false;
};

struct CheckResult {
  std::vector<MetricCheck> metrics;  // tolerances first, then gates
  // Inputs whose digest differs between the baseline and the new report (or "fleetsim
  // version" when that differs): a difference may come from them, not from behaviour.
  std::vector<std::string> changed_inputs;
  bool failed() const;
};

// The value at a dotted path; a key may itself hold dots ("by_instance_type.g5.2xlarge").
std::optional<double> report_metric(const nlohmann::json& report, std::string_view path);

// The two reports and what to call them in messages (their files).
struct CheckInputs {
  const nlohmann::json& baseline;
  const nlohmann::json& current;
  std::string baseline_name;
  std::string current_name;
};

// Throws InputError when a tolerance from a file or a gate names a path in neither report (with
// the closest path there is), or when either report has something other than a number or null
// at a checked path (a string, a group of metrics): such a check would pass without checking.
void check_metric_paths(const CheckInputs& in, const std::vector<Tolerance>& tolerances,
                        const std::vector<Gate>& gates);

CheckResult check_report(const nlohmann::json& baseline, const nlohmann::json& current,
                         const std::vector<Tolerance>& tolerances, const std::vector<Gate>& gates);

// A tolerances file: `METRIC: {max_rise: 2%}`, `{max_fall: 0.02}` (a share with %, else an
// absolute amount) or `off`; it replaces the defaults for the metrics it names and adds others.
std::vector<Tolerance> load_tolerances(const std::filesystem::path& file,
                                       std::vector<Tolerance> defaults);

// The table for a terminal, a Markdown table for a pull request, and JUnit XML.
std::string check_table(const CheckResult& r);
std::string check_markdown(const CheckResult& r);
std::string check_junit(const CheckResult& r);

}  // namespace fleetsim
