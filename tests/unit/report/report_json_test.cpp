#include "fleetsim/report/report_json.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/report/json_writer.hpp"
#include "fleetsim/report/summary.hpp"

using namespace fleetsim;
using Json = nlohmann::ordered_json;

namespace {

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> out;
  for (const auto& [k, v] : object.items()) out.push_back(k);
  return out;
}

// Every field set, with figures that need rounding.
RunResult full_result() {
  RunResult r;
  r.scenario = "unit";
  r.seed = 7;
  r.start_unix_s = 1'740'983'400;  // 2025-03-03T06:30:00Z
  r.duration = hours(1);
  r.efficiency = {.actual_usd = 1.5,
                  .fluid_usd = 0.9,
                  .packing_usd = 1.0,
                  .lower_bound_usd = 1.0,
                  .gap_usd = 0.5,
                  .gap_share = 1.0 / 3.0,
                  .parts = {.idle_usd = 0.1,
                            .fragmentation_usd = 0.15,
                            .startup_usd = 0.05,
                            .billing_minimum_usd = 0.02,
                            .capacity_type_usd = 0.08,
                            .type_choice_usd = 0.1}};
  r.cost = {.total_usd = 1.6000000004,
            .on_demand_usd = 1.2,
            .spot_usd = 0.3,
            .ebs_usd = 0.1,
            .by_nodepool = {{"spot-gpu", 0.3}, {"gpu", 1.3}},
            .by_instance_type = {{"g5.xlarge", 1.3}, {"g5.2xlarge", 0.3}},
            .by_capacity_type = {{"spot", 0.3}, {"on-demand", 1.3}},
            .by_workload = {{"train", 0.55}, {"(unallocated)", 1.05}}};
  r.gpu = {.provisioned_gpu_hours = 4.0,
           .allocated_gpu_hours = 2.5,
           .busy_gpu_hours = 1.0 / 3.0,
           .allocation_ratio = 0.625,
           .utilization = 1.0 / 12.0};
  const SlaResult::Totals totals{
      .requests = 10,
      .served = 8,
      .dropped = 1,
      .misses = 3,
      .miss_ratio = 0.3,
      .ttft_misses = 1,
      .e2e_misses = 1,
      .latency_ms = {.p50 = 120.25, .p95 = 300.0, .p99 = 410.5, .mean = 150.0000001},
      .ttft_ms = {.p50 = 20.0, .p95 = 40.0, .p99 = 50.0, .mean = 25.0},
      .tpot_ms = SlaResult::Latency{.p50 = 10.0, .p95 = 12.0, .p99 = 15.0, .mean = 10.5},
      .queue_ms = {.p50 = 0.0, .p95 = 5.0, .p99 = 8.0, .mean = 1.25},
      .output_tokens_per_s = 512.0000004};
  SlaResult::Totals llm = totals;
  llm.latency_ms.mean = 150.0;
  r.sla = {
      .totals = totals,
      .dropped_in_flight = 1,
      .by_service = {{.name = "llm",
                      .totals = llm,
                      .peak_replicas = 4,
                      .busy_gpu_hours = 0.25,
                      .engine = SlaResult::Service::Engine{
                          .preemptions = 2, .peak_running = 48, .kv_cache_peak_share = 0.912}}}};
  r.pods = {.created = 6,
            .evicted = 1,
            .preempted = 2,
            .pending_at_end = 1,
            .pending_seconds = {.p50 = 3.0, .p99 = 200.0, .max = 200.0},
            .unschedulable = {{.pod = "batch-stuck", .workload = "batch", .reason = "no \"fit\""}},
            .unschedulable_total = 1};
  r.jobs = {.completed = 2, .pods_completed = 5, .lost_gpu_hours = 1.0, .rework_usd = 1.0123456};
  r.nodes = {.launched = 3,
             .peak = 2,
             .launch_failures = 1,
             .spot_interruption_notices = 1,
             .terminated_by_reason = {{NodeDeletionReason::SpotInterruption, 1},
                                      {NodeDeletionReason::Empty, 1}}};
  r.headroom = {.node_hours = 0.5, .usd = 1.1000004};
  r.engine.events = 1234;
  return r;
}

}  // namespace

TEST_CASE("report.json has the contract's top-level keys in order", "[report]") {
  const Json r = report_json(RunResult{});
  CHECK(keys_of(r) == std::vector<std::string>{"scenario", "seed", "start", "duration_s",
                                               "quantiles", "cost", "efficiency", "gpu", "sla",
                                               "pods", "jobs", "nodes", "headroom", "engine"});
  CHECK(keys_of(r["sla"]) ==
        std::vector<std::string>{"requests", "served", "dropped", "dropped_in_flight", "misses",
                                 "miss_ratio", "ttft_misses", "e2e_misses", "ttft_miss_ratio",
                                 "e2e_miss_ratio", "drop_ratio", "latency_ms", "ttft_ms", "tpot_ms",
                                 "queue_ms", "output_tokens_per_s", "by_service"});
  CHECK(r["cost"]["by_workload"] == Json::object());
  CHECK(r["pods"]["unschedulable"] == Json::array());
}

TEST_CASE("report.json lays out every field of the result, rounded to six decimals", "[report]") {
  const std::string expected =
      R"j({"scenario":"unit","seed":7,"start":"2025-03-03T06:30:00Z","duration_s":3600.0,)j"
      R"j("quantiles":{"relative_accuracy":0.01},)j"
      R"j("cost":{"total_usd":1.6,"on_demand_usd":1.2,"spot_usd":0.3,"ebs_usd":0.1,)j"
      R"j("by_nodepool":{"gpu":1.3,"spot-gpu":0.3},)j"
      R"j("by_instance_type":{"g5.2xlarge":0.3,"g5.xlarge":1.3},)j"
      R"j("by_capacity_type":{"on-demand":1.3,"spot":0.3},)j"
      R"j("by_workload":{"(unallocated)":1.05,"train":0.55}},)j"
      R"j("efficiency":{"actual_usd":1.5,"bounds":{"fluid_usd":0.9,"packing_usd":1.0},)j"
      R"j("lower_bound_usd":1.0,"gap_usd":0.5,"gap_share":0.333333,)j"
      R"j("gap_parts":{"idle_usd":0.1,"fragmentation_usd":0.15,"startup_usd":0.05,)j"
      R"j("billing_minimum_usd":0.02,"capacity_type_usd":0.08,"type_choice_usd":0.1}},)j"
      R"j("gpu":{"provisioned_gpu_hours":4.0,"allocated_gpu_hours":2.5,)j"
      R"j("busy_gpu_hours":0.333333,"allocation_ratio":0.625,"utilization":0.083333},)j"
      R"j("sla":{"requests":10,"served":8,"dropped":1,"dropped_in_flight":1,"misses":3,)j"
      R"j("miss_ratio":0.3,"ttft_misses":1,"e2e_misses":1,)j"
      R"j("ttft_miss_ratio":0.1,"e2e_miss_ratio":0.1,"drop_ratio":0.1,)j"
      R"j("latency_ms":{"p50":120.25,"p95":300.0,"p99":410.5,"mean":150.0},)j"
      R"j("ttft_ms":{"p50":20.0,"p95":40.0,"p99":50.0,"mean":25.0},)j"
      R"j("tpot_ms":{"p50":10.0,"p95":12.0,"p99":15.0,"mean":10.5},)j"
      R"j("queue_ms":{"p50":0.0,"p95":5.0,"p99":8.0,"mean":1.25},"output_tokens_per_s":512.0,)j"
      R"j("by_service":{"llm":{"requests":10,"served":8,"dropped":1,"unfinished":1,"misses":3,)j"
      R"j("miss_ratio":0.3,"ttft_misses":1,"e2e_misses":1,)j"
      R"j("ttft_miss_ratio":0.1,"e2e_miss_ratio":0.1,"drop_ratio":0.1,)j"
      R"j("latency_ms":{"p50":120.25,"p95":300.0,"p99":410.5,"mean":150.0},)j"
      R"j("ttft_ms":{"p50":20.0,"p95":40.0,"p99":50.0,"mean":25.0},)j"
      R"j("tpot_ms":{"p50":10.0,"p95":12.0,"p99":15.0,"mean":10.5},)j"
      R"j("queue_ms":{"p50":0.0,"p95":5.0,"p99":8.0,"mean":1.25},"output_tokens_per_s":512.0,)j"
      R"j("simulation":"requests","peak_replicas":4,"busy_gpu_hours":0.25,)j"
      R"j("preemptions":2,"peak_running":48,"kv_cache_peak_share":0.912}}},)j"
      R"j("pods":{"created":6,"evicted":1,"preempted":2,"pending_at_end":1,)j"
      R"j("pending_seconds":{"p50":3.0,"p99":200.0,"max":200.0},)j"
      R"j("unschedulable":[{"pod":"batch-stuck","workload":"batch","reason":"no \"fit\""}],)j"
      R"j("unschedulable_total":1},)j"
      R"j("jobs":{"completed":2,"pods_completed":5,"lost_gpu_hours":1.0,"rework_usd":1.012346},)j"
      R"j("nodes":{"launched":3,"peak":2,"launch_failures":1,"spot_interruption_notices":1,)j"
      R"j("terminated_by_reason":{"empty":1,"spot_interruption":1}},)j"
      R"j("headroom":{"node_hours":0.5,"usd":1.1},)j"
      R"j("engine":{"events":1234}})j";
  CHECK(dump_json(report_json(full_result()), -1) == expected);
  CHECK(report_json_text(full_result()) == dump_json(report_json(full_result())) + "\n");
}

TEST_CASE("the disruption and spot sections appear only when present", "[report]") {
  RunResult r = full_result();
  r.disruption = DisruptionResult{
      .commands_by_method = {{"emptiness", 2}, {"single_node_consolidation", 1}},
      .replacements = 1,
      .nodes_by_reason = {{NodeDeletionReason::Empty, 2}, {NodeDeletionReason::Underutilized, 1}},
      .pods_evicted_by_reason = {{NodeDeletionReason::Underutilized, 4}},
      .claimed_savings_usd_per_hour = 0.1234567};
  r.spot =
      SpotResult{.notices = 3,
                 .notices_by_offering = {{"g5.xlarge us-east-1a", 2}, {"g5.xlarge us-east-1b", 1}},
                 .rebalance_recommendations = 1,
                 .lost_gpu_hours = 0.5,
                 .rework_usd = 0.25,
                 .launches_fell_back_to_on_demand = 2,
                 .capacity_changes = 4,
                 .price_changes = 5};
  const Json j = report_json(r);
  CHECK(keys_of(j) == std::vector<std::string>{"scenario", "seed", "start", "duration_s",
                                               "quantiles", "cost", "efficiency", "gpu", "sla",
                                               "pods", "jobs", "nodes", "headroom", "disruption",
                                               "spot", "engine"});
  CHECK(dump_json(j["disruption"], -1) ==
        R"({"commands_by_method":{"emptiness":2,"single_node_consolidation":1},)"
        R"("replacements":1,"nodes_by_reason":{"empty":2,"underutilized":1},)"
        R"("pods_evicted_by_reason":{"underutilized":4},"claimed_savings_usd_per_hour":0.123457})");
  CHECK(dump_json(j["spot"], -1) ==
        R"({"interruption_notices":3,)"
        R"("notices_by_offering":{"g5.xlarge us-east-1a":2,"g5.xlarge us-east-1b":1},)"
        R"("rebalance_recommendations":1,"lost_gpu_hours":0.5,"rework_usd":0.25,)"
        R"("launches_fell_back_to_on_demand":2,"capacity_changes":4,"price_changes":5})");
}

TEST_CASE("the summary shows the figures as report.json rounds them", "[report]") {
  RunResult r = full_result();
  r.cost.total_usd = 0.0049999996;  // 0.005 in report.json, so $0.01 as the file would say
  const std::string s = format_summary(r);
  INFO(s);
  CHECK(s.find("fleetsim: unit (seed 7, 1h0m0s from 2025-03-03T06:30:00Z)\n") == 0);
  CHECK(s.find("  cost total                $0.01\n") != std::string::npos);
  CHECK(s.find("  requests / SLO misses     10 / 3  (30.00%: 1 TTFT, 1 end-to-end, 1 dropped)\n") !=
        std::string::npos);
  // Quantiles from the 1% sketch: three significant digits, and said to be estimates.
  CHECK(s.find("  latency p50 / p99         120 ms / 410 ms (±1%)\n") != std::string::npos);
  CHECK(
      s.find("  pending p50 / p99 / max   3.00 s / 200 s / 200.0 s (p50, p99 ±1%; max exact)\n") !=
      std::string::npos);
  CHECK(s.find("    on-demand / spot / EBS  $1.20 / $0.30 / $0.10\n") != std::string::npos);
  CHECK(s.find("  jobs completed            2  (5 pods)\n") != std::string::npos);
  CHECK(s.find("  pods preempted            2\n") != std::string::npos);
  CHECK(s.find("    headroom                $1.10  (0.50 node-hours holding only balloon pods or "
               "buffer capacity)\n") != std::string::npos);
  r.headroom = {};
  CHECK(format_summary(r).find("headroom") == std::string::npos);
  CHECK(s.find("  unschedulable pods        1  (first: no \"fit\")\n") != std::string::npos);
}

TEST_CASE("reservations: report.json's block and the summary's line only when there are some",
          "[report]") {
  RunResult r = full_result();
  CHECK_FALSE(report_json(r).contains("reservations"));
  CHECK(format_summary(r).find("reservations") == std::string::npos);
  r.reservations = ReservationsResult{.by_id = {ReservationResult{.id = "cr-0a1",
                                                                  .type = "capacity-block",
                                                                  .instance_type = "p5.48xlarge",
                                                                  .zone = "us-east-1a",
                                                                  .count = 2,
                                                                  .usd_per_instance_hour = 31.464,
                                                                  .window_hours = 10,
                                                                  .reserved_instance_hours = 20,
                                                                  .used_instance_hours = 15,
                                                                  .utilization = 0.75,
                                                                  .usd = 629.28,
                                                                  .unused_usd = 157.32}},
                                      .reserved_instance_hours = 20,
                                      .used_instance_hours = 15,
                                      .utilization = 0.75,
                                      .usd = 629.28,
                                      .unused_usd = 157.32};
  r.cost.reservations_usd = 629.28;
  const auto j = report_json(r);
  CHECK(dump_json(j["cost"]["reservations_usd"], -1) == "629.28");
  CHECK(dump_json(j["reservations"], -1) ==
        R"({"by_id":{"cr-0a1":{"type":"capacity-block","instance_type":"p5.48xlarge",)"
        R"("zone":"us-east-1a","count":2,"usd_per_instance_hour":31.464,"window_hours":10.0,)"
        R"("reserved_instance_hours":20.0,"used_instance_hours":15.0,"utilization":0.75,)"
        R"("usd":629.28,"unused_usd":157.32}},"reserved_instance_hours":20.0,)"
        R"("used_instance_hours":15.0,"utilization":0.75,"usd":629.28,"unused_usd":157.32})");
  const std::string s = format_summary(r);
  INFO(s);
  CHECK(s.find("    reservations            $629.28  ($157.32 unused; 75.0% of 20.00 "
               "instance-hours used)\n") != std::string::npos);
}

TEST_CASE("gangs: report.json's block and the summary's line only with PodGroups", "[report]") {
  RunResult r = full_result();
  CHECK_FALSE(report_json(r).contains("gangs"));
  CHECK(format_summary(r).find("partial gangs") == std::string::npos);
  r.gangs = GangsResult{.idle_gpu_hours = 289.5793721,
                        .idle_node_hours = 36.19742,
                        .idle_usd = 1992.385413,
                        .permit_waits = 414,
                        .permit_timeouts = 33,
                        .pods_rejected = 397};
  CHECK(dump_json(report_json(r)["gangs"], -1) ==
        R"({"idle_gpu_hours":289.579372,"idle_node_hours":36.19742,"idle_usd":1992.385413,)"
        R"("permit_waits":414,"permit_timeouts":33,"pods_rejected":397})");
  const std::string s = format_summary(r);
  INFO(s);
  CHECK(s.find("    partial gangs           $1992.39  (289.58 idle GPU-hours; 33 Permit timeouts, "
               "397 pods rejected)\n") != std::string::npos);
}

TEST_CASE("the summary names the disruption commands' hourly rate for what it is", "[report]") {
  RunResult r = full_result();
  r.disruption = DisruptionResult{.commands_by_method = {{"emptiness", 2}},
                                  .claimed_savings_usd_per_hour = 1.234};
  const std::string s = format_summary(r);
  INFO(s);
  CHECK(s.find("    hourly rate removed     $1.23/h  (nodes' rates less replacements', summed at "
               "decision time)\n") != std::string::npos);
  CHECK(s.find("claimed savings") == std::string::npos);
}

TEST_CASE(
    "the summary gives each service a line, and n/a where nothing was measured (issue 12, "
    "finding 9)",
    "[report]") {
  RunResult r = full_result();
  SlaResult::Service slow = r.sla.by_service.at(0);
  slow.name = "vision";
  slow.totals.requests = 4;
  slow.totals.served = 0;
  slow.totals.dropped = 4;
  slow.totals.misses = 4;
  slow.totals.miss_ratio = 1;
  slow.totals.ttft_misses = 0;
  slow.totals.e2e_misses = 0;
  slow.peak_replicas = 0;
  r.sla.by_service.push_back(slow);
  r.pods.created = 0;
  const std::string s = format_summary(r);
  INFO(s);
  CHECK(s.find("    llm                     10 / 3  (30.00%: 1 TTFT, 1 end-to-end, 1 dropped)\n"
               "                            120 ms / 410 ms (±1%), peak 4 replicas\n") !=
        std::string::npos);
  CHECK(s.find("    vision                  4 / 4  (100.00%: 0 TTFT, 0 end-to-end, 4 dropped)\n"
               "                            n/a, peak 0 replicas\n") != std::string::npos);
  CHECK(
      s.find("                            120 ms / 410 ms (±1%), peak 4 replicas\n"
             "                            TTFT p99 50.0 ms, TPOT p99 15.0 ms, queue p99 8.00 ms, "
             "512.0 tokens/s\n"
             "                            2 preemptions, peak 48 running, KV cache peak 91.2%\n") !=
      std::string::npos);
  CHECK(s.find("  pending p50 / p99 / max   n/a\n") != std::string::npos);
}

TEST_CASE("a statistic without a sample is null, not 0 (issue 10, item 6)", "[report]") {
  RunResult empty;
  empty.scenario = "idle";
  const Json j = report_json(empty);
  CHECK(j["sla"]["miss_ratio"].is_null());
  CHECK(j["sla"]["latency_ms"]["p99"].is_null());
  CHECK(j["sla"]["ttft_ms"]["p50"].is_null());
  CHECK(j["sla"]["tpot_ms"]["p99"].is_null());
  CHECK(j["sla"]["queue_ms"]["p99"].is_null());
  CHECK(j["sla"]["output_tokens_per_s"].is_null());
  CHECK(j["gpu"]["utilization"].is_null());
  CHECK(j["gpu"]["allocation_ratio"].is_null());
  CHECK(j["pods"]["pending_seconds"]["max"].is_null());
  CHECK(j["sla"]["requests"] == 0);  // counts stay numbers
  CHECK(j["cost"]["total_usd"] == 0.0);
  // With samples, the figures.
  const Json full = report_json(full_result());
  CHECK(full["sla"]["latency_ms"]["p99"].is_number());
  CHECK(full["gpu"]["utilization"].is_number());
}

TEST_CASE("report.json records the fleetsim version and each input's digest when given",
          "[report]") {
  const ReportProvenance provenance{
      .version = "0.1.0",
      .inputs = {{"catalog/offerings.csv", "fnv1a64:00000000000000ab"},
                 {"scenario.yaml", "fnv1a64:00000000000000cd"}}};
  const Json j = Json::parse(report_json_text(full_result(), &provenance));
  CHECK(j["fleetsim"] == "0.1.0");
  CHECK(j["inputs"]["files"]["scenario.yaml"] == "fnv1a64:00000000000000cd");
  CHECK_FALSE(Json::parse(report_json_text(full_result())).contains("inputs"));
}

TEST_CASE(
    "a service without the engine model has null engine figures, and null TPOT and throughput "
    "when it does not time tokens",
    "[report]") {
  RunResult r = full_result();
  SlaResult::Service& s = r.sla.by_service.at(0);
  s.engine.reset();
  s.totals.tpot_ms.reset();
  s.totals.output_tokens_per_s.reset();
  const Json j = report_json(r)["sla"]["by_service"]["llm"];
  CHECK(j["preemptions"].is_null());
  CHECK(j["peak_running"].is_null());
  CHECK(j["kv_cache_peak_share"].is_null());
  CHECK(j["tpot_ms"]["p50"].is_null());
  CHECK(j["tpot_ms"]["mean"].is_null());
  CHECK(j["output_tokens_per_s"].is_null());
  CHECK(j["queue_ms"]["p99"] == 8.0);  // every service queues
}

TEST_CASE("the summary shows TTFT, TPOT, queue time, throughput and the engine's figures",
          "[report]") {
  const std::string s = format_summary(full_result());
  INFO(s);
  CHECK(s.find("  TTFT p50 / p99            20.0 ms / 50.0 ms (±1%)\n") != std::string::npos);
  CHECK(s.find("  TPOT p50 / p99            10.0 ms / 15.0 ms (±1%)\n") != std::string::npos);
  CHECK(s.find("  queue p50 / p99           0 ms / 8.00 ms (±1%)\n") != std::string::npos);
  CHECK(s.find("  output tokens/s           512.0\n") != std::string::npos);
  CHECK(
      s.find("  engine                    2 preemptions, peak 48 running, KV cache peak 91.2%\n") !=
      std::string::npos);
}
