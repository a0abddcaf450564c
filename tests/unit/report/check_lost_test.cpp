// Issue 25, item 8: a metric the baseline measured and the new report does not (null or gone)
// fails the check instead of passing as "not in both reports".
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fleetsim/report/check.hpp"

using namespace fleetsim;
using nlohmann::json;

TEST_CASE("a metric measured in the baseline only is a regression", "[report]") {
  const json base{{"sla", {{"latency_ms", {{"p99", 120.0}}}}}};
  const json lost{{"sla", {{"latency_ms", {{"p99", nullptr}}}}}};
  const std::vector<Tolerance> p99{{.metric = "sla.latency_ms.p99", .relative = 0.1}};
  const CheckResult now_null = check_report(base, lost, p99, {});
  REQUIRE(now_null.metrics.size() == 1);
  CHECK(now_null.metrics[0].verdict == Verdict::Regression);
  CHECK(now_null.failed());
  CHECK_THAT(check_table(now_null), Catch::Contains("REGRESSION (not in the new report)\n"));
  CHECK(check_report(base, json::object(), p99, {}).failed());
  // Measured only now, or in neither: shown, not failed.
  const CheckResult appeared = check_report(lost, base, p99, {});
  CHECK(appeared.metrics[0].verdict == Verdict::Missing);
  CHECK_FALSE(appeared.failed());
  CHECK_FALSE(check_report(lost, lost, p99, {}).failed());
}
