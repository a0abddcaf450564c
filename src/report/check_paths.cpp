// What fleetsim check holds a report to must be there to hold it to: a tolerance or gate on a
// path neither report has is a typo, and a metric that is a string or a group is not a number.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fleetsim/report/check.hpp"
#include "fleetsim/scenario/name_hint.hpp"

namespace fleetsim {

namespace {

// The node at a dotted path, the longest matching key first (a key may hold dots); null when
// there is none.
const nlohmann::json* report_node(const nlohmann::json& report, std::string_view path) {
  if (path.empty()) return &report;
  if (!report.is_object()) return nullptr;
  const nlohmann::json* found = nullptr;
  std::size_t longest = 0;
  for (const auto& [key, value] : report.items()) {
    const bool whole = path == key;
    if (key.size() <= longest ||
        (!whole && !(path.starts_with(key) && path.size() > key.size() && path[key.size()] == '.')))
      continue;
    if (const nlohmann::json* v = report_node(value, whole ? "" : path.substr(key.size() + 1))) {
      found = v;
      longest = key.size();
    }
  }
  return found;
}

// Every path to a number or a null: what a tolerance or gate can name.
void metric_paths(const nlohmann::json& node, const std::string& prefix,
                  std::vector<std::string>& out) {
  if (node.is_number() || node.is_null()) out.push_back(prefix);
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items())
    metric_paths(value, prefix.empty() ? key : prefix + "." + key, out);
}

std::string kind_of(const nlohmann::json& v) {
  if (v.is_string()) return fmt::format("a string (\"{}\")", v.get<std::string>().substr(0, 40));
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "a list";
  return "a group of metrics";
}

}  // namespace

void check_metric_paths(const CheckInputs& in, const std::vector<Tolerance>& tolerances,
                        const std::vector<Gate>& gates) {
  std::vector<std::string> paths;
  metric_paths(in.baseline, "", paths);
  metric_paths(in.current, "", paths);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  auto check = [&](const std::string& metric, const SourceLocation& where, bool named_by_user) {
    const nlohmann::json* base = report_node(in.baseline, metric);
    const nlohmann::json* current = report_node(in.current, metric);
    for (const auto& [node, name] :
         {std::pair{base, &in.baseline_name}, {current, &in.current_name}})
      if (node != nullptr && !node->is_number() && !node->is_null())
        throw InputError(
            SourceLocation{.file = *name}, metric,
            fmt::format("is {}, not a number, so it cannot be checked{}", kind_of(*node),
                        where.file.empty() ? "" : " (named at " + where.to_string() + ")"));
    if (named_by_user && base == nullptr && current == nullptr) {
      const std::vector<std::string_view> candidates(paths.begin(), paths.end());
      throw InputError(
          where, metric,
          "in neither report, so nothing checks it" + did_you_mean(metric, candidates));
    }
  };
  for (const Tolerance& t : tolerances) check(t.metric, t.where, !t.where.file.empty());
  for (const Gate& g : gates) check(g.metric, g.where, true);
}

}  // namespace fleetsim
