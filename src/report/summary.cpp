#include "fleetsim/report/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

namespace {

using Json = nlohmann::ordered_json;

// Label column width: the longest label plus two spaces.
constexpr int kLabelWidth = 26;

const Json& at(const Json& j, std::string_view key) {
  static const Json kNull;  // immutable: safe to share between threads
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

double num(const Json& j) { return j.is_number() ? j.get<double>() : 0.0; }
std::int64_t count(const Json& j) { return j.is_number() ? j.get<std::int64_t>() : 0; }

void row(std::string& out, std::string_view label, std::string_view value) {
  fmt::format_to(std::back_inserter(out), "  {:<{}}{}\n", label, kLabelWidth, value);
}

std::string usd(double x) { return fmt::format("${:.2f}", x); }

}  // namespace

std::string format_summary(const Json& report) {
  std::string out;
  const Json& cost = at(report, "cost");
  const Json& gpu = at(report, "gpu");
  const Json& pods = at(report, "pods");
  const Json& nodes = at(report, "nodes");

  const Json& scenario = at(report, "scenario");
  fmt::format_to(std::back_inserter(out), "fleetsim: {} (seed {}, {})\n",
                 scenario.is_string() ? scenario.get<std::string>() : std::string("?"),
                 count(at(report, "seed")),
                 format_duration(from_seconds(num(at(report, "duration_s")))));

  row(out, "cost total", usd(num(at(cost, "total_usd"))));
  row(out, "  on-demand / spot",
      usd(num(at(cost, "on_demand_usd"))) + " / " + usd(num(at(cost, "spot_usd"))));

  std::vector<std::pair<std::string, double>> pools;
  const Json& by_pool = at(cost, "by_nodepool");
  if (by_pool.is_object()) {
    for (const auto& [name, value] : by_pool.items()) pools.emplace_back(name, num(value));
  }
  // Costliest first; ties by name so the table is stable.
  std::sort(pools.begin(), pools.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  });
  std::size_t name_width = 0;
  for (std::size_t i = 0; i < pools.size() && i < kSummaryTopNodepools; ++i) {
    name_width = std::max(name_width, pools[i].first.size());
  }
  for (std::size_t i = 0; i < pools.size() && i < kSummaryTopNodepools; ++i) {
    row(out, i == 0 ? "  by nodepool" : "",
        fmt::format("{:<{}}  {}", pools[i].first, name_width, usd(pools[i].second)));
  }

  row(out, "GPU-hours provisioned", fmt::format("{:.2f}", num(at(gpu, "provisioned_gpu_hours"))));
  row(out, "GPU-hours allocated",
      fmt::format("{:.2f}  (ratio {:.2f})", num(at(gpu, "allocated_gpu_hours")),
                  num(at(gpu, "allocation_ratio"))));

  row(out, "GPU-hours busy", fmt::format("{:.2f}  (utilization {:.2f})", num(at(gpu, "busy_gpu_hours")),
                                          num(at(gpu, "utilization"))));

  // Serving, when the scenario has services.
  const Json& sla = at(report, "sla");
  if (count(at(sla, "requests")) > 0) {
    row(out, "requests / SLO misses",
        fmt::format("{} / {}  ({:.2f}%, {} dropped)", count(at(sla, "requests")), count(at(sla, "misses")),
                    100 * num(at(sla, "miss_ratio")), count(at(sla, "dropped"))));
    const Json& latency = at(sla, "latency_ms");
    row(out, "latency p50 / p99",
        fmt::format("{:.0f} ms / {:.0f} ms", num(at(latency, "p50")), num(at(latency, "p99"))));
  }

  const Json& pending = at(pods, "pending_seconds");
  row(out, "pending p50 / p99 / max",
      fmt::format("{:.1f} s / {:.1f} s / {:.1f} s", num(at(pending, "p50")),
                  num(at(pending, "p99")), num(at(pending, "max"))));
  row(out, "nodes launched / peak",
      fmt::format("{} / {}", count(at(nodes, "launched")), count(at(nodes, "peak"))));
  row(out, "jobs completed", fmt::format("{}", count(at(at(report, "jobs"), "completed"))));

  const std::int64_t unschedulable = count(at(pods, "unschedulable_total"));
  std::string value = fmt::format("{}", unschedulable);
  const Json& list = at(pods, "unschedulable");
  if (unschedulable > 0 && list.is_array() && !list.empty()) {
    const Json& reason = at(list.front(), "reason");
    if (reason.is_string()) value += fmt::format("  (first: {})", reason.get<std::string>());
  }
  row(out, "unschedulable pods", value);
  return out;
}

}  // namespace fleetsim
