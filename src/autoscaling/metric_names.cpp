#include "fleetsim/autoscaling/metric_names.hpp"

#include <algorithm>

namespace fleetsim {

bool is_prometheus_metric_name(std::string_view name) {
  auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  };
  if (name.empty() || !letter(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

std::vector<std::string> selected_metric_names(const PromQuery& query) {
  std::vector<std::string> out;
  for (const PromNode& node : query.nodes()) {
    for (const LabelMatcher& m : node.matchers) {
      if (m.name != kMetricNameLabel || m.op != MatchOp::Equal) continue;
      if (std::find(out.begin(), out.end(), m.value) == out.end()) out.push_back(m.value);
    }
  }
  return out;
}

}  // namespace fleetsim
