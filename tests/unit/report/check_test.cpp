// fleetsim check (issue 10, item 1): tolerances by kind and direction, gates, changed inputs,
// and the Markdown and JUnit outputs read back.
#include "fleetsim/report/check.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

using namespace fleetsim;
using nlohmann::json;

namespace {

json report(double cost, double miss, double util) {
  return json{{"fleetsim", "0.1.0"},
              {"cost", {{"total_usd", cost}, {"by_instance_type", {{"g5.2xlarge", cost}}}}},
              {"sla", {{"miss_ratio", miss}}},
              {"gpu", {{"utilization", util}}},
              {"inputs", {{"files", {{"scenario.yaml", "fnv1a64:1"}}}}}};
}

Verdict verdict_of(const CheckResult& r, const std::string& metric) {
  for (const MetricCheck& m : r.metrics)
    if (m.metric == metric) return m.verdict;
  FAIL("no check of " << metric);
  return Verdict::Missing;
}

}  // namespace

TEST_CASE("report metrics are read by dotted path, keys with dots included", "[report]") {
  const json r = report(100, 0.01, 0.9);
  CHECK(report_metric(r, "cost.total_usd") == 100.0);
  CHECK(report_metric(r, "cost.by_instance_type.g5.2xlarge") == 100.0);
  CHECK_FALSE(report_metric(r, "cost.by_instance_type.g5"));
  CHECK_FALSE(report_metric(r, "cost"));  // not a number
  CHECK_FALSE(report_metric(r, "sla.latency_ms.p99"));
  CHECK_FALSE(report_metric(json{{"sla", {{"miss_ratio", nullptr}}}}, "sla.miss_ratio"));
}

TEST_CASE("each tolerance allows its move in the worse direction only", "[report]") {
  const std::vector<Tolerance> tolerances{
      {.metric = "cost.total_usd", .relative = 0.02},
      {.metric = "sla.miss_ratio", .absolute = 0.002},
      {.metric = "gpu.utilization", .worse_when_higher = false, .absolute = 0.02},
  };
  const json base = report(100, 0.010, 0.90);
  // Exactly at each limit: within.
  CheckResult at_limit = check_report(base, report(102, 0.012, 0.88), tolerances, {});
  CHECK_FALSE(at_limit.failed());
  // Just past each.
  CheckResult past = check_report(base, report(102.01, 0.0121, 0.879), tolerances, {});
  CHECK(verdict_of(past, "cost.total_usd") == Verdict::Regression);
  CHECK(verdict_of(past, "sla.miss_ratio") == Verdict::Regression);
  CHECK(verdict_of(past, "gpu.utilization") == Verdict::Regression);
  // Any move the better way passes, however large.
  CHECK_FALSE(check_report(base, report(10, 0, 1.0), tolerances, {}).failed());
  // Relative or absolute, whichever allows more: p99 +10% or +1 s from a baseline of 5.
  const std::vector<Tolerance> either{
      {.metric = "cost.total_usd", .relative = 0.10, .absolute = 1}};
  CHECK_FALSE(check_report(report(5, 0, 0), report(6, 0, 0), either, {}).failed());
  CHECK(check_report(report(5, 0, 0), report(6.01, 0, 0), either, {}).failed());
  // A metric in only one report is shown, not failed.
  const std::vector<Tolerance> absent{{.metric = "sla.latency_ms.p99", .relative = 0.1}};
  CheckResult missing = check_report(base, base, absent, {});
  CHECK(verdict_of(missing, "sla.latency_ms.p99") == Verdict::Missing);
  CHECK_FALSE(missing.failed());
}

TEST_CASE("gates bound the new report, and a gate on an absent metric fails", "[report]") {
  const json r = report(480, 0.011, 0.9);
  const std::vector<Gate> gates{{.metric = "sla.miss_ratio", .max = 0.01},
                                {.metric = "cost.total_usd", .max = 500},
                                {.metric = "gpu.utilization", .min = 0.5},
                                {.metric = "sla.typo", .max = 1}};
  CheckResult res = check_report(r, r, {}, gates);
  REQUIRE(res.metrics.size() == 4);
  CHECK(res.metrics[0].verdict == Verdict::Regression);
  CHECK(res.metrics[0].limit == "≤ 0.01");
  CHECK(res.metrics[1].verdict == Verdict::Ok);
  CHECK(res.metrics[2].verdict == Verdict::Ok);
  CHECK(res.metrics[3].verdict == Verdict::Regression);
}

TEST_CASE("check names the inputs and version that changed since the baseline", "[report]") {
  json base = report(100, 0, 0);
  json now = base;
  CHECK(check_report(base, now, {}, {}).changed_inputs.empty());
  now["fleetsim"] = "0.2.0";
  now["inputs"]["files"]["scenario.yaml"] = "fnv1a64:2";
  now["inputs"]["files"]["manifests/pool.yaml"] = "fnv1a64:3";
  CHECK(check_report(base, now, {}, {}).changed_inputs ==
        std::vector<std::string>{"fleetsim version (0.1.0 → 0.2.0)", "manifests/pool.yaml",
                                 "scenario.yaml"});
}

TEST_CASE("check's Markdown and JUnit outputs read back", "[report]") {
  const std::vector<Tolerance> tolerances{{.metric = "cost.total_usd", .relative = 0.02},
                                          {.metric = "sla.miss_ratio", .absolute = 0.002}};
  const CheckResult r = check_report(report(100, 0.01, 0.9), report(110, 0.01, 0.9), tolerances,
                                     {{.metric = "sla.miss_ratio", .max = 0.05}});
  const std::string md = check_markdown(r);
  CHECK_THAT(md, Catch::StartsWith("### :x: fleetsim check failed\n"));
  CHECK_THAT(md, Catch::Contains("| `cost.total_usd` | 100 | 110 | +10 (+10.00%) | +2% | "
                                 "**REGRESSION** |\n"));
  CHECK_THAT(md,
             Catch::Contains("| `sla.miss_ratio` | 0.01 | 0.01 | +0 (+0.00%) | +0.002 | ok |\n"));
  CHECK_THAT(md, Catch::Contains("| gate `sla.miss_ratio` |  | 0.01 |  | ≤ 0.05 | ok |\n"));
  const std::string xml = check_junit(r);
  const std::regex suite("<testsuite name=\"fleetsim check\" tests=\"(\\d+)\" failures=\"(\\d+)\"");
  std::smatch m;
  REQUIRE(std::regex_search(xml, m, suite));
  CHECK(m[1] == "3");
  CHECK(m[2] == "1");
  const std::regex testcase("<testcase classname=\"fleetsim.check\" name=\"([^\"]+)\"");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), testcase);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1]);
  CHECK(names ==
        std::vector<std::string>{"cost.total_usd", "sla.miss_ratio", "gate sla.miss_ratio"});
  CHECK_THAT(xml, Catch::Contains("<failure message=\"cost.total_usd REGRESSION\">baseline 100, "
                                  "new 110, limit +2%</failure>"));
}

TEST_CASE("a tolerances file replaces the defaults it names and adds others", "[report]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("fleetsim-tol-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto load = [&](const std::string& text) {
    std::ofstream(dir / "t.yaml") << text;
    return load_tolerances(dir / "t.yaml", default_tolerances());
  };
  auto error = [&](const std::string& text) {
    try {
      load(text);
    } catch (const InputError& e) {
      return std::string(e.what()).substr((dir / "t.yaml").string().size());
    }
    return std::string("no error");
  };
  const auto t = load(
      "cost.total_usd: {max_rise: 5%}\nsla.miss_ratio: off\n"
      "sla.by_service.chat.latency_ms.p99: {max_rise: 250}\n"
      "gpu.utilization: {max_fall: 1%}\n");
  CHECK(t.size() == default_tolerances().size());  // one off, one added
  const auto find = [&](const std::string& m) {
    return *std::find_if(t.begin(), t.end(), [&](const Tolerance& x) { return x.metric == m; });
  };
  CHECK(find("cost.total_usd").relative == 0.05);
  CHECK(find("sla.by_service.chat.latency_ms.p99").absolute == 250);
  CHECK_FALSE(find("gpu.utilization").worse_when_higher);
  CHECK(find("gpu.utilization").relative == 0.01);
  CHECK(std::none_of(t.begin(), t.end(),
                     [](const Tolerance& x) { return x.metric == "sla.miss_ratio"; }));
  CHECK(error("cost.total_usd: {max_rise: two}\n") ==
        ":1:28: cost.total_usd.max_rise: expected an amount such as 2% or 0.002, got \"two\"");
  CHECK(error("cost.total_usd: {max_rise: 1, max_fall: 1}\n") ==
        ":1:17: cost.total_usd: give max_rise or max_fall, not both");
  CHECK(error("cost.total_usd: {max_raise: 1}\n") ==
        ":1:18: cost.total_usd.max_raise: unknown key; expected one of max_rise, max_fall; did "
        "you mean \"max_rise\"?");
  std::filesystem::remove_all(dir);
}
