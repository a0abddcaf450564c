#include "fleetsim/report/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "fleetsim/core/calendar.hpp"
#include "fleetsim/core/latency_sketch.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/report/number_format.hpp"
#include "fleetsim/report/reason_names.hpp"

namespace fleetsim {

namespace {

// Label column width: the longest label plus two spaces.
constexpr int kLabelWidth = 26;

// A figure as report.json shows it.
double shown(double x) { return round_report(x); }

void row(std::string& out, std::string_view label, std::string_view value) {
  fmt::format_to(std::back_inserter(out), "  {:<{}}{}\n", label, kLabelWidth, value);
}

std::string usd(double x) { return fmt::format("${:.2f}", shown(x)); }

// A quantile from the sketch: three significant digits, all that its 1% accuracy supports.
std::string quantile(double x) { return format_significant(x, 3); }

// What the sketch's quantiles are worth, said once per row that shows them.
const std::string kEstimate = fmt::format("±{:g}%", 100 * kSketchRelativeAccuracy);

// "80.0 ms / 140 ms (±1%)", or n/a without a sample.
std::string quantiles(const SlaResult::Latency& l, bool sampled) {
  if (!sampled) return "n/a";
  return fmt::format("{} ms / {} ms ({})", quantile(l.p50), quantile(l.p99), kEstimate);
}

// "131 ms / 4530 ms (±1%)", or n/a when nothing was served.
std::string p50_p99(const SlaResult::Totals& t) { return quantiles(t.latency_ms, t.served > 0); }

// "TTFT p99 410 ms, TPOT p99 20.0 ms, queue p99 0 ms, 512.0 tokens/s": a service's line, when
// it served requests.
std::string serving_p99s(const SlaResult::Totals& t) {
  std::string out = fmt::format("TTFT p99 {} ms", quantile(t.ttft_ms.p99));
  if (t.tpot_ms)
    fmt::format_to(std::back_inserter(out), ", TPOT p99 {} ms", quantile(t.tpot_ms->p99));
  fmt::format_to(std::back_inserter(out), ", queue p99 {} ms", quantile(t.queue_ms.p99));
  if (t.output_tokens_per_s)
    fmt::format_to(std::back_inserter(out), ", {:.1f} tokens/s", shown(*t.output_tokens_per_s));
  return out;
}

// "2 preemptions, peak 48 running, KV cache peak 91.2%" under the engine model; the fluid mode
// has means only, and no preemptions.
std::string engine_figures(const SlaResult::Service& s) {
  const SlaResult::Service::Engine& e = *s.engine;
  if (s.fluid) {
    return fmt::format("fluid mode: peak {} running, KV cache peak {:.1f}% (of means)",
                       e.peak_running, 100 * shown(e.kv_cache_peak_share));
  }
  return fmt::format("{} preemptions, peak {} running, KV cache peak {:.1f}%", e.preemptions,
                     e.peak_running, 100 * shown(e.kv_cache_peak_share));
}

// "10 / 3  (30.00%: 1 TTFT, 1 end-to-end, 1 dropped)": the misses and what they are made of.
std::string requests_and_misses(const SlaResult::Totals& t) {
  return fmt::format("{} / {}  ({:.2f}%: {} TTFT, {} end-to-end, {} dropped)", t.requests, t.misses,
                     100 * shown(t.miss_ratio), t.ttft_misses, t.e2e_misses, t.dropped);
}

// "3 empty, 2 underutilized", or "none".
std::string joined_counts(const CountByName& counts) {
  std::string out;
  for (const auto& [name, count] : counts)
    fmt::format_to(std::back_inserter(out), "{}{} {}", out.empty() ? "" : ", ", count, name);
  return out.empty() ? "none" : out;
}

}  // namespace

std::string format_summary(const RunResult& result) {
  std::string out;
  const CostResult& cost = result.cost;
  const GpuResult& gpu = result.gpu;
  const PodsResult& pods = result.pods;

  fmt::format_to(std::back_inserter(out), "fleetsim: {} (seed {}, {} from {})\n", result.scenario,
                 result.seed, format_duration(result.duration),
                 format_rfc3339(result.start_unix_s));

  row(out, "cost total", usd(cost.total_usd));
  row(out, "  on-demand / spot / EBS",
      usd(cost.on_demand_usd) + " / " + usd(cost.spot_usd) + " / " + usd(cost.ebs_usd));
  if (cost.management_fee_usd) row(out, "  EKS Auto Mode fee", usd(*cost.management_fee_usd));
  // Reservations are billed whole, used or not: their bill, and the part of it no node used.
  if (result.reservations) {
    const ReservationsResult& res = *result.reservations;
    row(out, "  reservations",
        fmt::format("{}  ({} unused; {:.1f}% of {:.2f} instance-hours used)", usd(res.usd),
                    usd(res.unused_usd), 100 * res.utilization,
                    shown(res.reserved_instance_hours)));
  }
  std::vector<std::pair<std::string_view, double>> pools;
  for (const auto& [name, value] : cost.by_nodegroup ? *cost.by_nodegroup : cost.by_nodepool)
    pools.emplace_back(name, shown(value));
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
    row(out, i == 0 ? (cost.by_nodegroup ? "  by node group" : "  by nodepool") : "",
        fmt::format("{:<{}}  {}", pools[i].first, name_width, usd(pools[i].second)));
  }
  // Nodes that held only balloon pods (negative priority) or CapacityBuffer virtual pods: what
  // the headroom cost.
  if (result.headroom.node_hours > 0)
    row(out, "  headroom",
        fmt::format("{}  ({:.2f} node-hours holding only balloon pods or buffer capacity)",
                    usd(result.headroom.usd), shown(result.headroom.node_hours)));
  // Nodes held idle for gangs whose pods could not all start (gang_ledger.hpp).
  if (result.gangs)
    row(out, "  partial gangs",
        fmt::format("{}  ({:.2f} idle GPU-hours; {} Permit timeouts, {} pods rejected)",
                    usd(result.gangs->idle_usd), shown(result.gangs->idle_gpu_hours),
                    result.gangs->permit_timeouts, result.gangs->pods_rejected));
  // How far the instances' cost is from what any policy must have paid (efficiency).
  const EfficiencyResult& eff = result.efficiency;
  row(out, "  instances' lower bound",
      fmt::format("{} (gap {}, {:.1f}% of {})", usd(eff.lower_bound_usd), usd(eff.gap_usd),
                  100 * eff.gap_share, usd(eff.actual_usd)));
  const EfficiencyResult::Parts& gp = eff.parts;
  row(out, "  gap idle/frag/start-up",
      usd(gp.idle_usd) + " / " + usd(gp.fragmentation_usd) + " / " + usd(gp.startup_usd));
  row(out, "  gap min/on-demand/type",
      usd(gp.billing_minimum_usd) + " / " + usd(gp.capacity_type_usd) + " / " +
          usd(gp.type_choice_usd));

  row(out, "GPU-hours provisioned", fmt::format("{:.2f}", shown(gpu.provisioned_gpu_hours)));
  row(out, "GPU-hours allocated",
      fmt::format("{:.2f}  (ratio {:.2f})", shown(gpu.allocated_gpu_hours),
                  shown(gpu.allocation_ratio)));
  row(out, "GPU-hours busy",
      fmt::format("{:.2f}  (utilization {:.2f})", shown(gpu.busy_gpu_hours),
                  shown(gpu.utilization)));
  if (gpu.mig) {
    row(out, "MIG GPU-hours",
        fmt::format("{:.2f}  ({})", shown(gpu.mig->gpu_hours), usd(gpu.mig->usd)));
    for (const auto& [profile, s] : gpu.mig->by_profile) {
      row(out, fmt::format("  {} slice-hours", profile),
          fmt::format("{:.2f} offered / {:.2f} allocated / {:.2f} busy",
                      shown(s.offered_slice_hours), shown(s.allocated_slice_hours),
                      shown(s.busy_slice_hours)));
      row(out, fmt::format("  {} per slice-hour", profile),
          fmt::format("{} offered / {} busy", usd(s.usd_per_slice_hour),
                      s.usd_per_busy_slice_hour ? usd(*s.usd_per_busy_slice_hour) : "n/a"));
    }
  }
  if (gpu.shared) {
    const GpuResult::Slices& r = gpu.shared->replicas;
    row(out, "Shared GPU-hours",
        fmt::format("{:.2f}  ({})", shown(gpu.shared->gpu_hours), usd(gpu.shared->usd)));
    row(out, "  replica-hours",
        fmt::format("{:.2f} offered / {:.2f} allocated / {:.2f} busy", shown(r.offered_slice_hours),
                    shown(r.allocated_slice_hours), shown(r.busy_slice_hours)));
    row(out, "  per replica-hour",
        fmt::format("{} offered / {} busy", usd(r.usd_per_slice_hour),
                    r.usd_per_busy_slice_hour ? usd(*r.usd_per_busy_slice_hour) : "n/a"));
  }

  // Serving, when the scenario has services.
  const SlaResult& sla = result.sla;
  if (!sla.by_service.empty()) {
    row(out, "requests / SLO misses", requests_and_misses(sla.totals));
    row(out, "latency p50 / p99", p50_p99(sla.totals));
    const SlaResult::Totals& t = sla.totals;
    row(out, "TTFT p50 / p99", quantiles(t.ttft_ms, t.served > 0));
    row(out, "TPOT p50 / p99",
        quantiles(t.tpot_ms.value_or(SlaResult::Latency{}), t.tpot_ms.has_value()));
    row(out, "queue p50 / p99", quantiles(t.queue_ms, t.served > 0));
    row(out, "output tokens/s",
        t.output_tokens_per_s ? fmt::format("{:.1f}", shown(*t.output_tokens_per_s)) : "n/a");
    // Each service on its own: one blended latency hides a slow model behind a fast one.
    if (sla.by_service.size() > 1) {
      for (const SlaResult::Service& s : sla.by_service) {
        row(out, fmt::format("  {}", s.name), requests_and_misses(s.totals));
        row(out, "", fmt::format("{}, peak {} replicas", p50_p99(s.totals), s.peak_replicas));
        if (s.totals.served > 0) row(out, "", serving_p99s(s.totals));
        if (s.engine) row(out, "", engine_figures(s));
      }
    } else if (sla.by_service.front().engine) {
      row(out, "engine", engine_figures(sla.by_service.front()));
    }
  }

  const PodsResult::PendingSeconds& pending = pods.pending_seconds;
  row(out, "pending p50 / p99 / max",
      pods.created == 0
          ? std::string("n/a")
          : fmt::format("{} s / {} s / {:.1f} s (p50, p99 {}; max exact)", quantile(pending.p50),
                        quantile(pending.p99), shown(pending.max), kEstimate));
  // kube-scheduler's victims: pods deleted to make room for pods of higher priority.
  row(out, "pods preempted", fmt::format("{}", pods.preempted));
  row(out, "nodes launched / peak",
      fmt::format("{} / {}", result.nodes.launched, result.nodes.peak));
  if (result.disruption) {
    const DisruptionResult& d = *result.disruption;
    row(out, "disruption commands", joined_counts(d.commands_by_method));
    row(out, "  nodes disrupted", joined_counts(by_name(d.nodes_by_reason)));
    row(out, "  pods evicted", joined_counts(by_name(d.pods_evicted_by_reason)));
    // Not a saving over the run: what the commands expected to stop paying per hour, each
    // counted when it was decided, however long the saving then lasted.
    row(out, "  hourly rate removed",
        fmt::format("{}/h  (nodes' rates less replacements', summed at decision time)",
                    usd(d.claimed_savings_usd_per_hour)));
  }
  if (result.spot) {
    row(out, "spot interruption notices",
        fmt::format("{}  ({} rebalance recommendations before)", result.spot->notices,
                    result.spot->rebalance_recommendations));
  }
  row(out, "jobs completed",
      fmt::format("{}  ({} pods)", result.jobs.completed, result.jobs.pods_completed));

  std::string value = fmt::format("{}", pods.unschedulable_total);
  if (pods.unschedulable_total > 0 && !pods.unschedulable.empty()) {
    value += fmt::format("  (first: {})", pods.unschedulable.front().reason);
  }
  row(out, "unschedulable pods", value);
  return out;
}

}  // namespace fleetsim
