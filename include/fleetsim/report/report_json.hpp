// Serializes a RunResult as report.json (DESIGN.md §7).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetsim/runner/run_result.hpp"

namespace fleetsim {

// report.json's document: the sections in RunResult's order (scenario, seed, duration_s, cost,
// gpu, sla, pods, jobs, nodes, disruption and spot when present, engine), every double rounded
// with round_report.
nlohmann::ordered_json report_json(const RunResult& result);

// What a report was made with: fleetsim's version and each input's digest (input_digests).
// `fleetsim run` records it after the engine section; a run without it (the golden tests) leaves
// it out, so that golden files do not change with every edit of a scenario's comments.
struct ReportProvenance {
  std::string version;
  std::vector<std::pair<std::string, std::string>> inputs;
};

// report.json's bytes: report_json laid out by dump_json with an indent of 2, and a final newline.
std::string report_json_text(const RunResult& result, const ReportProvenance* provenance = nullptr);

// A report.json read back (by check and compare): throws InputError at `path`, naming `field`,
// when it cannot be read or is not a fleetsim report (an object with scenario and cost).
nlohmann::json read_report_file(const std::filesystem::path& path, std::string_view field);

}  // namespace fleetsim
