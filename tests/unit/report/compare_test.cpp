// fleetsim compare (issue 10, item 2; issue 25, items 4 and 5): side-by-side headline metrics,
// means and 95% intervals, each figure with the precision it has.
#include "fleetsim/report/compare.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace fleetsim;
using nlohmann::json;

namespace {

json golden(const std::string& name) {
  std::ifstream in(std::string(FLEETSIM_SOURCE_DIR) + "/tests/scenarios/" + name + "/report.json");
  return json::parse(in);
}

json cost(double usd) { return json{{"cost", {{"total_usd", usd}}}}; }

// The lines of `text` that start with `metric` followed by a space.
std::string line_of(const std::string& text, const std::string& metric) {
  const std::size_t at = text.find("\n" + metric + " ");
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("compare: two golden reports side by side", "[report]") {
  const std::string table =
      compare_table({{.name = "when-empty", .reports = {golden("consolidation/when-empty")}},
                     {.name = "balanced", .reports = {golden("consolidation/balanced")}}});
  CHECK(table ==
        "metric                           when-empty (n=1)  balanced (n=1)     change\n"
        "cost.total_usd                             155.34          132.43    -14.75%\n"
        "cost.on_demand_usd                           0.00            0.00      +0.00\n"
        "cost.spot_usd                              152.98          130.26    -14.85%\n"
        "headroom.usd                                 0.00            0.00      +0.00\n"
        "reservations.unused_usd                       n/a             n/a        n/a\n"
        "efficiency.lower_bound_usd                  87.39           90.91     +4.03%\n"
        "efficiency.gap_share                     0.428791          0.3021    -29.55%\n"
        "gpu.utilization                          0.611647        0.724306    +18.42%\n"
        "gpu.provisioned_gpu_hours                  335.16          287.32    -14.27%\n"
        "sla.requests                               193080          193080     +0.00%\n"
        "sla.miss_ratio                           0.056355        0.119427   +111.92%\n"
        "sla.ttft_miss_ratio                      0.049876         0.10708   +114.69%\n"
        "sla.e2e_miss_ratio                       0.005998        0.005495     -8.39%\n"
        "sla.drop_ratio                           0.000482        0.006852  +1321.58%\n"
        "sla.latency_ms.p50                           7180            7470        +4%\n"
        "sla.latency_ms.p99                          44300           68600       +55%\n"
        "sla.ttft_ms.p99                             31700           59800       +89%\n"
        "sla.tpot_ms.p99                              80.0            81.6        +2%\n"
        "pods.pending_seconds.p99                     92.3             143       +55%\n"
        "pods.evicted                                    0              45        +45\n"
        "pods.preempted                                  0               2         +2\n"
        "nodes.launched                                 26              61   +134.62%\n"
        "nodes.peak                                      7               8    +14.29%\n"
        "nodes.spot_interruption_notices                 0               0         +0\n"
        "nodes.spot_interruptions                        0               0         +0\n"
        "disruption.commands                            20              56   +180.00%\n"
        "jobs.completed                                 27              26     -3.70%\n"
        "jobs.lost_gpu_hours                          0.00           12.88     +12.88\n");
}

TEST_CASE("compare: the headroom's cost and the balloons preempted (issue 27)", "[report]") {
  const std::string table =
      compare_table({{.name = "none", .reports = {golden("headroom/karpenter-no-headroom")}},
                     {.name = "balloons", .reports = {golden("headroom/karpenter-balloon")}}});
  INFO(table);
  CHECK(line_of(table, "headroom.usd") ==
        "headroom.usd                           0.00           57.43   +57.43");
  CHECK(line_of(table, "pods.preempted") ==
        "pods.preempted                            0              52      +52");
}

TEST_CASE("compare: the reservations' unused bill (issue 27)", "[report]") {
  const std::string table =
      compare_table({{.name = "block", .reports = {golden("reservations/capacity-block")}},
                     {.name = "odcr", .reports = {golden("reservations/odcr")}}});
  INFO(table);
  // A Capacity Block of 8 for 56 h at $31.464 and an ODCR of 8 for 72 h at $55.04, each used
  // for the Job's 385.7 instance-hours: (448 − 385.7) × 31.464 and (576 − 385.7) × 55.04.
  CHECK(line_of(table, "reservations.unused_usd") ==
        "reservations.unused_usd              1960.50    10476.50  +434.38%");
}

TEST_CASE("compare: a side of several seeds shows its mean and 95% interval", "[report]") {
  // 1, 2, 3: mean 2, s = 1, half-width t(0.975, 2) × 1 / √3 = 4.303 / 1.732 = 2.484.
  const std::string table = compare_table(
      {{.name = "a", .reports = {cost(1), cost(2), cost(3)}}, {.name = "b", .reports = {cost(3)}}});
  CHECK(line_of(table, "cost.total_usd") ==
        "cost.total_usd                   2.00 ± 2.5     3.00  +50.00%");
  CHECK(line_of(table, "sla.miss_ratio") ==
        "sla.miss_ratio                          n/a      n/a      n/a");
  CHECK(student_t975(1) == 12.706);
  CHECK(student_t975(30) == 2.042);
  CHECK(student_t975(200) == 1.960);
}

TEST_CASE("compare: ± only where a side's seeds differ", "[report]") {
  // 0.1 three times: the mean is not exactly 0.1 in binary, yet the seeds agree.
  const std::vector<CompareLine> lines =
      compare_lines({{.name = "a", .reports = {cost(0.1), cost(0.1), cost(0.1)}}});
  CHECK(lines.front().metric == "cost.total_usd");
  CHECK(lines.front().cells.front().mean == "0.10");
  CHECK(lines.front().cells.front().half_width.empty());
  CHECK(mean_interval(std::vector<double>{0.1, 0.1, 0.1}).half_width == 0);
}

TEST_CASE("compare: counts print as integers, quantiles with three significant digits",
          "[report]") {
  json big = {{"sla",
               {{"requests", 1234567},
                {"latency_ms", {{"p50", 8080.441455}, {"p99", 48004.026242}}},
                {"ttft_ms", {{"p99", 0.051234}}}}},
              {"nodes", {{"launched", 26}, {"peak", 7}}},
              {"pods", {{"evicted", 3}, {"pending_seconds", {{"p99", 71.0}}}}}};
  json other = big;
  other["nodes"]["launched"] = 27;
  const std::vector<CompareSide> sides{{.name = "a", .reports = {big}},
                                       {.name = "b", .reports = {big, other}}};
  const std::string table = compare_table(sides);
  INFO(table);
  CHECK(line_of(table, "sla.requests") ==
        "sla.requests                     1234567     1234567  +0.00%");
  CHECK(line_of(table, "sla.latency_ms.p50") ==
        "sla.latency_ms.p50                  8080        8080     +0%");
  CHECK(line_of(table, "sla.latency_ms.p99") ==
        "sla.latency_ms.p99                 48000       48000     +0%");
  CHECK(line_of(table, "sla.ttft_ms.p99") ==
        "sla.ttft_ms.p99                   0.0512      0.0512     +0%");
  CHECK(line_of(table, "pods.pending_seconds.p99") ==
        "pods.pending_seconds.p99            71.0        71.0     +0%");
  CHECK(line_of(table, "nodes.launched") ==
        "nodes.launched                        26  26.5 ± 6.4  +1.92%");
  CHECK(line_of(table, "pods.evicted") ==
        "pods.evicted                           3           3  +0.00%");
}

TEST_CASE("compare: disruption commands and spot interruptions are derived from the report",
          "[report]") {
  const json r = {{"nodes",
                   {{"launched", 5},
                    {"spot_interruption_notices", 2},
                    {"terminated_by_reason", {{"empty", 1}, {"spot_interruption", 2}}}}},
                  {"disruption", {{"commands_by_method", {{"emptiness", 3}, {"drift", 1}}}}}};
  CHECK(compare_metric(r, "disruption.commands") == 4.0);
  CHECK(compare_metric(r, "nodes.spot_interruptions") == 2.0);
  const json quiet = {{"nodes", {{"launched", 5}, {"terminated_by_reason", json::object()}}}};
  CHECK(compare_metric(quiet, "nodes.spot_interruptions") == 0.0);  // none happened
  CHECK_FALSE(compare_metric(quiet, "disruption.commands"));        // no disruption controller
}

TEST_CASE("compare: CSV, Markdown and JSON carry the table's figures", "[report]") {
  const std::vector<CompareSide> sides{{.name = "a", .reports = {cost(1), cost(2), cost(3)}},
                                       {.name = "b|c", .reports = {cost(3)}}};
  const std::string csv = format_compare(sides, CompareFormat::Csv);
  CHECK_THAT(csv, Catch::StartsWith("metric,side,seeds,mean,half_width,change\n"
                                    "cost.total_usd,a,3,2.00,2.5,\n"
                                    "cost.total_usd,b|c,1,3.00,,+50.00%\n"
                                    "cost.on_demand_usd,a,0,,,\n"
                                    "cost.on_demand_usd,b|c,0,,,\n"));
  const std::string md = format_compare(sides, CompareFormat::Markdown);
  CHECK_THAT(md, Catch::StartsWith("| metric | a (n=3) | b\\|c (n=1) | change |\n"
                                   "|---|---:|---:|---:|\n"
                                   "| cost.total_usd | 2.00 ± 2.5 | 3.00 | +50.00% |\n"
                                   "| cost.on_demand_usd | n/a | n/a | n/a |\n"));
  const json j = json::parse(format_compare(sides, CompareFormat::Json));
  CHECK(j["sides"] == json::parse(R"([{"name":"a","seeds":3},{"name":"b|c","seeds":1}])"));
  CHECK(j["metrics"][0] == json::parse(R"({"metric":"cost.total_usd","values":[
          {"mean":2.0,"half_width":2.5,"seeds":3},
          {"mean":3.0,"half_width":null,"seeds":1,"change":"+50.00%"}]})"));
  CHECK(j["metrics"][1]["values"][1] ==
        json::parse(R"({"mean":null,"half_width":null,"seeds":0,"change":null})"));
}
