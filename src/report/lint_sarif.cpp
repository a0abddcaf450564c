#include "fleetsim/report/lint_sarif.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fleetsim/core/output_path.hpp"
#include "fleetsim/core/version.hpp"

namespace fleetsim {

namespace {

using nlohmann::json;

constexpr std::string_view kSchema = "https://json.schemastore.org/sarif-2.1.0.json";

std::string_view level(LintSeverity s) { return s == LintSeverity::Info ? "note" : "warning"; }

// RFC 3986: every byte but the unreserved ones and '/' percent-encoded.
std::string uri_encode(std::string_view path) {
  std::string out;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || c == '/')
      out += c;
    else
      out += fmt::format("%{:02X}", u);
  }
  return out;
}

// A file below `base` as a relative URI under %SRCROOT%; any other as an absolute file: URI.
json artifact_location(const std::filesystem::path& file, const std::filesystem::path& base) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::weakly_canonical(file, ec);
  const std::filesystem::path root = std::filesystem::weakly_canonical(base, ec);
  const std::filesystem::path relative = absolute.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..")
    return {{"uri", uri_encode(relative.generic_string())}, {"uriBaseId", "%SRCROOT%"}};
  return {{"uri", "file://" + uri_encode(absolute.generic_string())}};
}

json rules() {
  json out = json::array();
  for (const LintRule& r : kLintRules) {
    const std::string text(r.summary);
    out.push_back({{"id", r.id},
                   {"name", r.id},
                   {"shortDescription", {{"text", text}}},
                   {"fullDescription", {{"text", text}}},
                   {"help", {{"text", text + " (see the Lint section of fleetsim's README)"}}},
                   {"defaultConfiguration", {{"level", level(r.severity)}}}});
  }
  return out;
}

std::size_t rule_index(std::string_view id) {
  for (std::size_t i = 0; i < kLintRules.size(); ++i)
    if (kLintRules[i].id == id) return i;
  return 0;  // findings only come from kLintRules
}

json result(const LintFinding& f, std::span<const LintAcceptance> accepts,
            const std::filesystem::path& scenario_file, const std::filesystem::path& base) {
  json region = json::object();
  if (f.where.line > 0) region["startLine"] = f.where.line;
  if (f.where.col > 0) region["startColumn"] = f.where.col;
  json physical = {{"artifactLocation", artifact_location(f.where.file, base)}};
  if (!region.empty()) physical["region"] = region;
  json out = {{"ruleId", f.rule},
              {"ruleIndex", rule_index(f.rule)},
              {"level", level(f.severity)},
              {"message", {{"text", fmt::format("{}: {}. Fix: {}", f.subject, f.what, f.fix)}}},
              {"locations", json::array({{{"physicalLocation", physical}}})}};
  if (f.accepted_by) {
    const LintAcceptance& a = accepts[*f.accepted_by];
    const bool in_source = same_file(scenario_file, f.where.file);
    out["suppressions"] = json::array(
        {{{"kind", in_source ? "inSource" : "external"},
          {"status", "accepted"},
          {"justification", fmt::format("accepted by the scenario's lint.accept entry \"{}\" ({})",
                                        a.text, a.where.to_string())}}});
  }
  return out;
}

}  // namespace

std::string lint_sarif(const std::vector<LintFinding>& findings,
                       std::span<const LintAcceptance> accepts,
                       const std::filesystem::path& scenario_file,
                       const std::filesystem::path& base) {
  json results = json::array();
  for (const LintFinding& f : findings) results.push_back(result(f, accepts, scenario_file, base));
  const json driver = {{"name", "fleetsim"},
                       {"version", kFleetsimVersion},
                       {"semanticVersion", kFleetsimVersion},
                       // No informationUri or helpUri: fleetsim has no published address;
                       // the help text points at the README.
                       {"rules", rules()}};
  const json sarif = {
      {"$schema", kSchema},
      {"version", "2.1.0"},
      {"runs", json::array({{{"tool", {{"driver", driver}}}, {"results", results}}})}};
  return sarif.dump(2) + "\n";
}

}  // namespace fleetsim
