// report.json's efficiency block, and `check` gating on its gap share.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fleetsim/report/check.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/report/summary.hpp"

using namespace fleetsim;

namespace {

// README's worked example: four one-GPU pods for an hour on a g5.12xlarge billed 66 minutes.
RunResult worked_example() {
  RunResult r;
  r.scenario = "worked-example";
  EfficiencyResult& e = r.efficiency;
  e.actual_usd = 5.672 * 66 / 60;
  e.fluid_usd = 4 * 1.006;
  e.packing_usd = 4 * 1.006;
  e.lower_bound_usd = 4 * 1.006;
  e.gap_usd = e.actual_usd - e.lower_bound_usd;
  e.gap_share = e.gap_usd / e.actual_usd;
  e.parts.startup_usd = 5.672 / 60;
  e.parts.idle_usd = 5.672 * 5 / 60;
  e.parts.type_choice_usd = 5.672 - 4 * 1.006;
  return r;
}

}  // namespace

TEST_CASE("report.json has the efficiency block after cost", "[report]") {
  const nlohmann::ordered_json j = report_json(worked_example());
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  const auto cost = std::find(keys.begin(), keys.end(), "cost");
  REQUIRE(cost != keys.end());
  CHECK(*(cost + 1) == "efficiency");
  const auto& e = j["efficiency"];
  CHECK(e["actual_usd"] == 6.2392);
  CHECK(e["bounds"]["fluid_usd"] == 4.024);
  CHECK(e["bounds"]["packing_usd"] == 4.024);
  CHECK(e["lower_bound_usd"] == 4.024);
  CHECK(e["gap_usd"] == 2.2152);
  CHECK(e["gap_parts"]["startup_usd"] == Approx(0.094533).margin(1e-6));
  CHECK(e["gap_parts"]["idle_usd"] == Approx(0.472667).margin(1e-6));
  CHECK(e["gap_parts"]["type_choice_usd"] == 1.648);
  CHECK(e["gap_parts"]["fragmentation_usd"] == 0.0);
  CHECK(e["gap_parts"]["billing_minimum_usd"] == 0.0);
  CHECK(e["gap_parts"]["capacity_type_usd"] == 0.0);
}

TEST_CASE("check gates on efficiency.gap_share", "[report]") {
  const nlohmann::json j = report_json(worked_example());  // gap share 0.355
  const std::vector<Gate> tight{{.metric = "efficiency.gap_share", .max = 0.3}};
  const std::vector<Gate> loose{{.metric = "efficiency.gap_share", .max = 0.4}};
  CHECK(check_report(j, j, {}, tight).metrics.at(0).verdict == Verdict::Regression);
  CHECK(check_report(j, j, {}, loose).metrics.at(0).verdict == Verdict::Ok);
}

TEST_CASE("the summary shows the lower bound and the gap in parts", "[report]") {
  const std::string s = format_summary(worked_example());
  CHECK(s.find("    instances' lower bound  $4.02 (gap $2.22, 35.5% of $6.24)\n") !=
        std::string::npos);
  CHECK(s.find("    gap idle/frag/start-up  $0.47 / $0.00 / $0.09\n") != std::string::npos);
  CHECK(s.find("    gap min/on-demand/type  $0.00 / $0.00 / $1.65\n") != std::string::npos);
}
