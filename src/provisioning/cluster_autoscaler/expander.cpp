#include "fleetsim/provisioning/cluster_autoscaler/expander.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace fleetsim {

namespace {

// least-waste (waste/waste.go): the idle share of the new nodes' CPU plus that of their memory,
// on the template's capacity; GPUs are not counted.
double waste(const ScaleUpOption& o) {
  const auto n = static_cast<double>(o.node_count);
  const double cpu = static_cast<double>(o.node_capacity.cpu_millis()) * n;
  const double mem = static_cast<double>(o.node_capacity.memory_bytes()) * n;
  return (cpu - static_cast<double>(o.pod_requests.cpu_millis())) / cpu +
         (mem - static_cast<double>(o.pod_requests.memory_bytes())) / mem;
}

// Keeps the options whose score equals the best, compared exactly as upstream does.
template <typename Score, typename Better>
std::vector<std::size_t> keep_extreme(std::span<const std::size_t> among, Score score,
                                      Better better) {
  std::vector<std::size_t> out;
  std::optional<decltype(score(0))> best;
  for (std::size_t i : among) {
    const auto s = score(i);
    if (!best || better(s, *best)) {
      best = s;
      out.clear();
    }
    if (s == *best) out.push_back(i);
  }
  return out;
}

// priority (priority/priority.go): an option takes the highest priority among the expressions
// that match its group's name anywhere (unanchored); unmatched options go; with no match at
// all every option stays.
std::vector<std::size_t> keep_priority(std::span<const ScaleUpOption> options,
                                       std::span<const std::size_t> among,
                                       std::span<const ExpanderPriority> priorities) {
  std::vector<std::size_t> out;
  int max_priority = -1;
  for (std::size_t i : among) {
    for (const ExpanderPriority& p : priorities) {  // highest first
      // Go's regexp, which upstream uses, has RE2's syntax.
      const bool matches =
          std::any_of(p.patterns.begin(), p.patterns.end(), [&](const std::string& pattern) {
            return RE2::PartialMatch(options[i].name, RE2(pattern, RE2::Quiet));
          });
      if (!matches) continue;
      if (p.priority > max_priority) {
        max_priority = p.priority;
        out.clear();
      }
      if (p.priority == max_priority) out.push_back(i);
      break;
    }
  }
  if (out.empty()) return {among.begin(), among.end()};
  return out;
}

}  // namespace

std::string_view to_string(Expander e) {
  switch (e) {
    case Expander::Random:
      return "random";
    case Expander::MostPods:
      return "most-pods";
    case Expander::LeastWaste:
      return "least-waste";
    case Expander::LeastNodes:
      return "least-nodes";
    case Expander::Price:
      return "price";
    case Expander::Priority:
      return "priority";
  }
  return "unknown";
}

std::vector<std::size_t> keep_best(Expander expander, std::span<const ScaleUpOption> options,
                                   std::span<const std::size_t> among,
                                   std::span<const ExpanderPriority> priorities) {
  switch (expander) {
    case Expander::MostPods:
      return keep_extreme(
          among, [&](std::size_t i) { return options[i].pods.size(); }, std::greater<>());
    case Expander::LeastNodes: {
      std::vector<std::size_t> with_nodes;
      for (std::size_t i : among)
        if (options[i].node_count > 0) with_nodes.push_back(i);
      return keep_extreme(
          with_nodes, [&](std::size_t i) { return options[i].node_count; }, std::less<>());
    }
    case Expander::LeastWaste:
      return keep_extreme(
          among, [&](std::size_t i) { return waste(options[i]); }, std::less<>());
    case Expander::Priority:
      return keep_priority(options, among, priorities);
    case Expander::Random:
    case Expander::Price:
      break;
  }
  return {among.begin(), among.end()};
}

std::optional<std::size_t> choose_option(std::span<const ScaleUpOption> options,
                                         std::span<const Expander> expanders,
                                         std::span<const ExpanderPriority> priorities,
                                         RngStream& rng) {
  std::vector<std::size_t> left(options.size());
  for (std::size_t i = 0; i < left.size(); ++i) left[i] = i;
  for (Expander e : expanders) {
    if (left.size() == 1) return left.front();
    if (e == Expander::Random) break;
    left = keep_best(e, options, left, priorities);
  }
  if (left.empty()) return std::nullopt;
  if (left.size() == 1) return left.front();
  return left[rng.below(left.size())];
}

}  // namespace fleetsim
