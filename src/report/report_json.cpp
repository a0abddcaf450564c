#include "fleetsim/report/report_json.hpp"

#include <fmt/format.h>

#include <fstream>

#include "fleetsim/core/calendar.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/input_file.hpp"
#include "fleetsim/core/latency_sketch.hpp"
#include "fleetsim/report/json_writer.hpp"
#include "fleetsim/report/number_format.hpp"
#include "fleetsim/report/reason_names.hpp"

namespace fleetsim {

namespace {

using Json = nlohmann::ordered_json;

Json usd_object(const UsdByName& m) {
  Json o = Json::object();
  for (const auto& [name, usd] : m) o[name] = round_report(usd);
  return o;
}

// A statistic of no sample is null, not 0: a gate or a plot must not read "no request" as "0 ms".
Json stat(double v, bool sampled) { return sampled ? Json(round_report(v)) : Json(nullptr); }

Json latency_json(const SlaResult::Latency& l, bool sampled) {
  return Json{{"p50", stat(l.p50, sampled)},
              {"p95", stat(l.p95, sampled)},
              {"p99", stat(l.p99, sampled)},
              {"mean", stat(l.mean, sampled)}};
}

// The share of requests a count is; null without requests.
Json share(std::uint64_t count, std::uint64_t requests) {
  return stat(static_cast<double>(count) / static_cast<double>(requests > 0 ? requests : 1),
              requests > 0);
}

// misses and miss_ratio as before, then what they are made of: drops, TTFT misses and
// end-to-end misses, which add up to them.
void add_misses(Json& j, const SlaResult::Totals& t) {
  j["misses"] = t.misses;
  j["miss_ratio"] = stat(t.miss_ratio, t.requests > 0);
  j["ttft_misses"] = t.ttft_misses;
  j["e2e_misses"] = t.e2e_misses;
  j["ttft_miss_ratio"] = share(t.ttft_misses, t.requests);
  j["e2e_miss_ratio"] = share(t.e2e_misses, t.requests);
  j["drop_ratio"] = share(t.dropped, t.requests);
}

// The serving figures beside latency_ms and ttft_ms: null where nothing defines them.
void add_serving_figures(Json& j, const SlaResult::Totals& t) {
  j["tpot_ms"] = latency_json(t.tpot_ms.value_or(SlaResult::Latency{}), t.tpot_ms.has_value());
  j["queue_ms"] = latency_json(t.queue_ms, t.served > 0);
  j["output_tokens_per_s"] =
      stat(t.output_tokens_per_s.value_or(0.0), t.output_tokens_per_s.has_value());
}

Json sla_json(const SlaResult& sla) {
  Json by_service = Json::object();
  for (const SlaResult::Service& s : sla.by_service) {
    const SlaResult::Totals& t = s.totals;
    Json& j = by_service[s.name];
    j["requests"] = t.requests;
    j["served"] = t.served;
    j["dropped"] = t.dropped;
    j["unfinished"] = t.unfinished();
    add_misses(j, t);
    j["latency_ms"] = latency_json(t.latency_ms, t.served > 0);
    j["ttft_ms"] = latency_json(t.ttft_ms, t.served > 0);
    add_serving_figures(j, t);
    j["simulation"] = s.fluid ? "fluid" : "requests";
    j["peak_replicas"] = s.peak_replicas;
    j["busy_gpu_hours"] = round_report(s.busy_gpu_hours);
    if (!s.busy_slice_hours.empty()) {
      Json slices = Json::object();
      for (const auto& [profile, hours] : s.busy_slice_hours) slices[profile] = round_report(hours);
      j["busy_slice_hours"] = std::move(slices);
    }
    if (s.busy_replica_hours > 0) j["busy_replica_hours"] = round_report(s.busy_replica_hours);
    // The engine model's figures; null for services without it.
    const bool engine = s.engine.has_value();
    const SlaResult::Service::Engine e = s.engine.value_or(SlaResult::Service::Engine{});
    j["preemptions"] = engine ? Json(e.preemptions) : Json(nullptr);
    j["peak_running"] = engine ? Json(e.peak_running) : Json(nullptr);
    j["kv_cache_peak_share"] = stat(e.kv_cache_peak_share, engine);
  }
  const SlaResult::Totals& t = sla.totals;
  Json j = Json::object();
  j["requests"] = t.requests;
  j["served"] = t.served;
  j["dropped"] = t.dropped;
  j["dropped_in_flight"] = sla.dropped_in_flight;
  add_misses(j, t);
  j["latency_ms"] = latency_json(t.latency_ms, t.served > 0);
  j["ttft_ms"] = latency_json(t.ttft_ms, t.served > 0);
  add_serving_figures(j, t);
  j["by_service"] = std::move(by_service);
  return j;
}

// README "How good is my fleet?": instance dollars only.
Json efficiency_json(const EfficiencyResult& e) {
  Json j = Json::object();
  j["actual_usd"] = round_report(e.actual_usd);
  j["bounds"] =
      Json{{"fluid_usd", round_report(e.fluid_usd)}, {"packing_usd", round_report(e.packing_usd)}};
  j["lower_bound_usd"] = round_report(e.lower_bound_usd);
  j["gap_usd"] = round_report(e.gap_usd);
  j["gap_share"] = round_report(e.gap_share);
  const EfficiencyResult::Parts& p = e.parts;
  j["gap_parts"] = Json{{"idle_usd", round_report(p.idle_usd)},
                        {"fragmentation_usd", round_report(p.fragmentation_usd)},
                        {"startup_usd", round_report(p.startup_usd)},
                        {"billing_minimum_usd", round_report(p.billing_minimum_usd)},
                        {"capacity_type_usd", round_report(p.capacity_type_usd)},
                        {"type_choice_usd", round_report(p.type_choice_usd)}};
  return j;
}

Json counts(const CountByName& by_name) {
  Json out = Json::object();
  for (const auto& [name, count] : by_name) out[name] = count;
  return out;
}

Json reservations_json(const ReservationsResult& res) {
  Json by_id = Json::object();
  for (const ReservationResult& r : res.by_id) {
    by_id[r.id] = Json{{"type", r.type},
                       {"instance_type", r.instance_type},
                       {"zone", r.zone},
                       {"count", r.count},
                       {"usd_per_instance_hour", round_report(r.usd_per_instance_hour)},
                       {"window_hours", round_report(r.window_hours)},
                       {"reserved_instance_hours", round_report(r.reserved_instance_hours)},
                       {"used_instance_hours", round_report(r.used_instance_hours)},
                       {"utilization", round_report(r.utilization)},
                       {"usd", round_report(r.usd)},
                       {"unused_usd", round_report(r.unused_usd)}};
  }
  return Json{{"by_id", std::move(by_id)},
              {"reserved_instance_hours", round_report(res.reserved_instance_hours)},
              {"used_instance_hours", round_report(res.used_instance_hours)},
              {"utilization", round_report(res.utilization)},
              {"usd", round_report(res.usd)},
              {"unused_usd", round_report(res.unused_usd)}};
}

// MIG instances ("slice") or shared GPUs' replicas ("replica"): offered, held, busy, cost.
Json slices_json(const GpuResult::Slices& s, std::string_view unit) {
  const bool offered = s.offered_slice_hours > 0;
  return Json{
      {fmt::format("offered_{}_hours", unit), round_report(s.offered_slice_hours)},
      {fmt::format("allocated_{}_hours", unit), round_report(s.allocated_slice_hours)},
      {fmt::format("busy_{}_hours", unit), round_report(s.busy_slice_hours)},
      {"allocation_ratio", stat(s.allocation_ratio, offered)},
      {"utilization", stat(s.utilization, offered)},
      {"usd", round_report(s.usd)},
      {fmt::format("usd_per_{}_hour", unit), stat(s.usd_per_slice_hour, offered)},
      {fmt::format("usd_per_busy_{}_hour", unit),
       stat(s.usd_per_busy_slice_hour.value_or(0.0), s.usd_per_busy_slice_hour.has_value())}};
}

}  // namespace

Json report_json(const RunResult& result) {
  Json r = Json::object();
  r["scenario"] = result.scenario;
  r["seed"] = result.seed;
  r["start"] = format_rfc3339(result.start_unix_s);
  r["duration_s"] = round_report(to_seconds(result.duration));
  // Every p50, p95 and p99 below (latencies, pending times) comes from a sketch: within this
  // share of the true value. Means, maxima and counts are exact.
  r["quantiles"] = Json{{"relative_accuracy", kSketchRelativeAccuracy}};

  const CostResult& c = result.cost;
  Json& cost = r["cost"];
  cost["total_usd"] = round_report(c.total_usd);
  cost["on_demand_usd"] = round_report(c.on_demand_usd);
  cost["spot_usd"] = round_report(c.spot_usd);
  cost["ebs_usd"] = round_report(c.ebs_usd);
  if (c.management_fee_usd) cost["management_fee_usd"] = round_report(*c.management_fee_usd);
  if (c.reservations_usd) cost["reservations_usd"] = round_report(*c.reservations_usd);
  cost["by_nodepool"] = usd_object(c.by_nodepool);
  if (c.by_nodegroup) cost["by_nodegroup"] = usd_object(*c.by_nodegroup);
  cost["by_instance_type"] = usd_object(c.by_instance_type);
  cost["by_capacity_type"] = usd_object(c.by_capacity_type);
  cost["by_workload"] = usd_object(c.by_workload);

  r["efficiency"] = efficiency_json(result.efficiency);

  const GpuResult& g = result.gpu;
  Json& gpu = r["gpu"];
  gpu["provisioned_gpu_hours"] = round_report(g.provisioned_gpu_hours);
  gpu["allocated_gpu_hours"] = round_report(g.allocated_gpu_hours);
  gpu["busy_gpu_hours"] = round_report(g.busy_gpu_hours);
  gpu["allocation_ratio"] = stat(g.allocation_ratio, g.provisioned_gpu_hours > 0);
  gpu["utilization"] = stat(g.utilization, g.provisioned_gpu_hours > 0);
  if (g.mig) {
    Json profiles = Json::object();
    for (const auto& [name, s] : g.mig->by_profile) profiles[name] = slices_json(s, "slice");
    gpu["mig"] = Json{{"gpu_hours", round_report(g.mig->gpu_hours)},
                      {"usd", round_report(g.mig->usd)},
                      {"by_profile", std::move(profiles)}};
  }
  if (g.shared) {
    Json shared{{"gpu_hours", round_report(g.shared->gpu_hours)},
                {"usd", round_report(g.shared->usd)}};
    shared.update(slices_json(g.shared->replicas, "replica"));
    gpu["shared"] = std::move(shared);
  }

  r["sla"] = sla_json(result.sla);

  const PodsResult& p = result.pods;
  Json& pods = r["pods"];
  pods["created"] = p.created;
  pods["evicted"] = p.evicted;
  pods["preempted"] = p.preempted;
  pods["pending_at_end"] = p.pending_at_end;
  pods["pending_seconds"] = Json{
      {"p50", stat(p.pending_seconds.p50, p.created > 0)},
      {"p99", stat(p.pending_seconds.p99, p.created > 0)},
      {"max", stat(p.pending_seconds.max, p.created > 0)},
  };
  Json list = Json::array();
  for (const PodsResult::Unschedulable& u : p.unschedulable) {
    list.push_back(Json{{"pod", u.pod}, {"workload", u.workload}, {"reason", u.reason}});
  }
  pods["unschedulable"] = std::move(list);
  pods["unschedulable_total"] = p.unschedulable_total;

  Json& jobs = r["jobs"];
  jobs["completed"] = result.jobs.completed;
  jobs["pods_completed"] = result.jobs.pods_completed;
  jobs["lost_gpu_hours"] = round_report(result.jobs.lost_gpu_hours);
  jobs["rework_usd"] = round_report(result.jobs.rework_usd);

  const NodesResult& n = result.nodes;
  Json& nodes = r["nodes"];
  nodes["launched"] = n.launched;
  nodes["peak"] = n.peak;
  nodes["launch_failures"] = n.launch_failures;
  nodes["spot_interruption_notices"] = n.spot_interruption_notices;
  nodes["terminated_by_reason"] = counts(by_name(n.terminated_by_reason));

  r["headroom"] = Json{{"node_hours", round_report(result.headroom.node_hours)},
                       {"usd", round_report(result.headroom.usd)}};

  if (result.reservations) r["reservations"] = reservations_json(*result.reservations);

  if (result.gangs) {
    const GangsResult& g = *result.gangs;
    r["gangs"] = Json{{"idle_gpu_hours", round_report(g.idle_gpu_hours)},
                      {"idle_node_hours", round_report(g.idle_node_hours)},
                      {"idle_usd", round_report(g.idle_usd)},
                      {"permit_waits", g.permit_waits},
                      {"permit_timeouts", g.permit_timeouts},
                      {"pods_rejected", g.pods_rejected}};
  }

  if (result.disruption) {
    const DisruptionResult& d = *result.disruption;
    Json& disruption = r["disruption"];
    disruption["commands_by_method"] = counts(d.commands_by_method);
    disruption["replacements"] = d.replacements;
    disruption["nodes_by_reason"] = counts(by_name(d.nodes_by_reason));
    disruption["pods_evicted_by_reason"] = counts(by_name(d.pods_evicted_by_reason));
    disruption["claimed_savings_usd_per_hour"] = round_report(d.claimed_savings_usd_per_hour);
  }
  if (result.spot) {
    Json& spot = r["spot"];
    spot["interruption_notices"] = result.spot->notices;
    spot["notices_by_offering"] = counts(result.spot->notices_by_offering);
    spot["rebalance_recommendations"] = result.spot->rebalance_recommendations;
    spot["lost_gpu_hours"] = round_report(result.spot->lost_gpu_hours);
    spot["rework_usd"] = round_report(result.spot->rework_usd);
    spot["launches_fell_back_to_on_demand"] = result.spot->launches_fell_back_to_on_demand;
    spot["capacity_changes"] = result.spot->capacity_changes;
    spot["price_changes"] = result.spot->price_changes;
  }

  r["engine"] = Json{{"events", result.engine.events}};
  return r;
}

std::string report_json_text(const RunResult& result, const ReportProvenance* provenance) {
  nlohmann::ordered_json doc = report_json(result);
  if (provenance != nullptr) {
    doc["fleetsim"] = provenance->version;
    nlohmann::ordered_json files = nlohmann::ordered_json::object();
    for (const auto& [name, digest] : provenance->inputs) files[name] = digest;
    doc["inputs"] = {{"files", files}};
  }
  return dump_json(doc) + "\n";
}

nlohmann::json read_report_file(const std::filesystem::path& path, std::string_view field) {
  // Reading a folder throws from the stream buffer (an internal error); a FIFO would block.
  if (auto why = not_a_regular_file(path))
    throw InputError(SourceLocation{.file = path.string()}, std::string(field), *why);
  std::ifstream in(path);
  if (!in)
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     "cannot read this file");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("cost") || !doc.contains("scenario") ||
      !doc["scenario"].is_string())
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     "not a fleetsim report.json");
  return doc;
}

}  // namespace fleetsim
