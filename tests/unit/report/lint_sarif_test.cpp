// `fleetsim lint --sarif` (issue 25, item 6): SARIF 2.1.0's required structure, the rules, a
// result's location relative to the base, and an accepted finding's suppression.
#include "fleetsim/report/lint_sarif.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "fleetsim/core/version.hpp"

using namespace fleetsim;
using nlohmann::json;

namespace {

// What SARIF 2.1.0 requires of a log (sarif-schema-2.1.0.json's "required" lists) and what
// GitHub code scanning needs besides: every result's rule is one of the driver's rules.
void check_sarif_structure(const json& log) {
  REQUIRE(log.at("version") == "2.1.0");
  REQUIRE(log.at("$schema").is_string());
  REQUIRE(log.at("runs").is_array());
  for (const json& run : log.at("runs")) {
    const json& driver = run.at("tool").at("driver");
    REQUIRE(driver.at("name").is_string());
    std::set<std::string> ids;
    for (const json& rule : driver.at("rules")) {
      REQUIRE(rule.at("id").is_string());
      ids.insert(rule.at("id").get<std::string>());
      const std::string level = rule.at("defaultConfiguration").at("level");
      CHECK((level == "warning" || level == "note"));
    }
    for (const json& result : run.at("results")) {
      REQUIRE(result.at("message").at("text").is_string());
      CHECK(ids.count(result.at("ruleId").get<std::string>()) == 1);
      CHECK(driver.at("rules").at(result.at("ruleIndex").get<std::size_t>()).at("id") ==
            result.at("ruleId"));
      for (const json& location : result.at("locations")) {
        const json& region = location.at("physicalLocation").at("region");
        CHECK(region.at("startLine").get<int>() >= 1);
        CHECK(region.at("startColumn").get<int>() >= 1);
      }
      if (result.contains("suppressions"))
        for (const json& s : result.at("suppressions")) {
          const std::string kind = s.at("kind");
          CHECK((kind == "inSource" || kind == "external"));
        }
    }
  }
}

LintFinding make_finding(std::string_view rule, LintSeverity severity, std::string file, int line,
                         int col) {
  return LintFinding{.rule = rule,
                     .severity = severity,
                     .where = {.file = std::move(file), .line = line, .col = col},
                     .subject = "NodePool gpu",
                     .what = "it never gets a pod",
                     .fix = "drop the taint"};
}

}  // namespace

TEST_CASE("lint SARIF: the required structure, rules, locations and suppressions",
          "[report][lint]") {
  const std::filesystem::path base = "/work/repo";
  std::vector<LintFinding> findings{
      make_finding("untolerated-taint", LintSeverity::Warning, "/work/repo/ci/pools a.yaml", 6, 9),
      make_finding("unneeded-toleration", LintSeverity::Info, "/elsewhere/pods.yaml", 16, 18),
      make_finding("consolidate-after-before-ready", LintSeverity::Warning,
                   "/work/repo/ci/./s.yaml", 3, 5)};
  const std::vector<LintAcceptance> accepts{
      {.text = "unneeded-toleration",
       .rule = "unneeded-toleration",
       .where = {.file = "/work/repo/ci/s.yaml", .line = 7, .col = 7}}};
  findings[1].accepted_by = 0;
  findings[2].accepted_by = 0;  // accepted in the file it is found in
  const std::string text = lint_sarif(findings, accepts, "/work/repo/ci/s.yaml", base);
  CHECK(text == lint_sarif(findings, accepts, "/work/repo/ci/s.yaml", base));  // deterministic
  const json log = json::parse(text);
  check_sarif_structure(log);
  CHECK(log.at("$schema") == "https://json.schemastore.org/sarif-2.1.0.json");
  const json& run = log.at("runs").at(0);
  CHECK(log.at("runs").size() == 1);
  const json& driver = run.at("tool").at("driver");
  CHECK(driver.at("name") == "fleetsim");
  CHECK(driver.at("version") == std::string(kFleetsimVersion));
  CHECK_FALSE(driver.contains("informationUri"));  // no address is invented
  REQUIRE(driver.at("rules").size() == kLintRules.size());
  const json& last = driver.at("rules").back();
  CHECK(last.at("id") == "unneeded-toleration");
  CHECK(last.at("shortDescription").at("text") == "a toleration of a taint no NodePool sets");
  CHECK(last.at("fullDescription").at("text") == "a toleration of a taint no NodePool sets");
  CHECK(last.at("defaultConfiguration").at("level") == "note");
  CHECK(driver.at("rules").at(0).at("defaultConfiguration").at("level") == "warning");

  REQUIRE(run.at("results").size() == 3);
  const json& taint = run.at("results").at(0);
  CHECK(taint.at("ruleId") == "untolerated-taint");
  CHECK(taint.at("level") == "warning");
  CHECK(taint.at("message").at("text") == "NodePool gpu: it never gets a pod. Fix: drop the taint");
  const json& where = taint.at("locations").at(0).at("physicalLocation");
  CHECK(where.at("artifactLocation") ==
        json{{"uri", "ci/pools%20a.yaml"}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(where.at("region") == json{{"startLine", 6}, {"startColumn", 9}});
  CHECK_FALSE(taint.contains("suppressions"));

  const json& toleration = run.at("results").at(1);
  CHECK(toleration.at("level") == "note");
  CHECK(toleration.at("locations").at(0).at("physicalLocation").at("artifactLocation") ==
        json{{"uri", "file:///elsewhere/pods.yaml"}});
  CHECK(toleration.at("suppressions") ==
        json::array({{{"kind", "external"},
                      {"status", "accepted"},
                      {"justification",
                       "accepted by the scenario's lint.accept entry \"unneeded-toleration\" "
                       "(/work/repo/ci/s.yaml:7:7)"}}}));
  CHECK(run.at("results").at(2).at("suppressions").at(0).at("kind") == "inSource");
}
