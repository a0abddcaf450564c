// fleetsim compare (issue 10, item 2): side-by-side headline metrics, means and 95% intervals.
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

}  // namespace

TEST_CASE("compare: two golden reports side by side", "[report]") {
  const std::string table =
      compare_table({{.name = "when-empty", .reports = {golden("consolidation/when-empty")}},
                     {.name = "balanced", .reports = {golden("consolidation/balanced")}}});
  CHECK(table ==
        "metric                     when-empty (n=1)  balanced (n=1)    change\n"
        "cost.total_usd                      174.987         140.773   -19.55%\n"
        "cost.on_demand_usd                        0               0        +0\n"
        "cost.spot_usd                       172.444         138.574   -19.64%\n"
        "gpu.utilization                    0.593353        0.742274   +25.10%\n"
        "gpu.provisioned_gpu_hours           376.401         303.654   -19.33%\n"
        "sla.requests                         193080          193080    +0.00%\n"
        "sla.miss_ratio                     0.066387        0.152496  +129.71%\n"
        "sla.latency_ms.p50                  8080.44         8577.28    +6.15%\n"
        "sla.latency_ms.p99                    48004         74265.9   +54.71%\n"
        "sla.ttft_ms.p99                     32974.3         59778.2   +81.29%\n"
        "pods.pending_seconds.p99                 71              71    +0.00%\n"
        "nodes.launched                           26              68  +161.54%\n"
        "nodes.peak                                7               8   +14.29%\n"
        "jobs.completed                           27              26    -3.70%\n"
        "jobs.lost_gpu_hours                       0         18.3439  +18.3439\n");
}

TEST_CASE("compare: a side of several seeds shows its mean and 95% interval", "[report]") {
  // 1, 2, 3: mean 2, s = 1, half-width t(0.975, 2) × 1 / √3 = 4.303 / 1.732 = 2.484.
  const std::string table = compare_table(
      {{.name = "a", .reports = {cost(1), cost(2), cost(3)}}, {.name = "b", .reports = {cost(3)}}});
  CHECK_THAT(table, Catch::Contains("cost.total_usd             2 ± 2.48        3  +50.00%\n"));
  CHECK_THAT(table, Catch::Contains("sla.miss_ratio                  n/a      n/a      n/a\n"));
  CHECK(student_t975(1) == 12.706);
  CHECK(student_t975(30) == 2.042);
  CHECK(student_t975(200) == 1.960);
}
