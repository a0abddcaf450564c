// The study loader refuses what would make results one cannot trust (issue 25, item 8): a seed
// as a parameter, two parameters on one field, repeated seeds or points, an empty or oversized
// points list, a parameter named as a results column, a value with a newline; and range values
// stay distinct.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "fleetsim/core/error.hpp"
#include "fleetsim/study/range_values.hpp"
#include "fleetsim/study/study.hpp"

using namespace fleetsim;

namespace {

const std::filesystem::path kSource(FLEETSIM_SOURCE_DIR);

struct Scratch {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fleetsim-study-" + std::to_string(::getpid()));
  Scratch() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
};

// A study of model-pair with `rest` appended (parameters:, seeds:, points:).
std::string load_error(const Scratch& s, const std::string& rest) {
  const std::filesystem::path file = s.dir / "study.yaml";
  std::ofstream(file) << "scenario: " << (kSource / "scenarios/model-pair/scenario.yaml").string()
                      << "\n"
                      << rest;
  try {
    load_study(file, kSource / "instance-catalog");
  } catch (const InputError& e) {
    return std::string(e.what()).substr(file.string().size());
  }
  return "no error";
}

constexpr std::string_view kFactor =
    "parameters:\n  surge:\n    target: services[0].traffic.factor\n    values: [2, 4]\n";

}  // namespace

TEST_CASE("a study's parameters are not the seed nor one field twice nor a results column",
          "[study]") {
  Scratch s;
  CHECK(load_error(s, "parameters:\n  s: {target: seed, values: [1, 2]}\n") ==
        ":3:15: target: the seed is not a parameter: each run's seed comes from the study's "
        "seeds: (seeds: 5, or seeds: [1, 7, 9])");
  CHECK(load_error(s, std::string(kFactor) +
                          "  again: {target: \"services[0].traffic.factor\", values: [3]}\n") ==
        ":6:19: target: \"services[0].traffic.factor\" overlaps parameter surge's target "
        "\"services[0].traffic.factor\": one would overwrite the other");
  CHECK(load_error(s, std::string(kFactor) +
                          "  whole: {target: \"services[0].traffic\", values: [{factor: 3}]}\n") ==
        ":6:19: target: \"services[0].traffic\" overlaps parameter surge's target "
        "\"services[0].traffic.factor\": one would overwrite the other");
  CHECK(load_error(s,
                   "parameters:\n  cost.total_usd: {target: \"services[0].traffic.factor\", "
                   "values: [2]}\n") ==
        ":3:3: parameters: \"cost.total_usd\" is a results.csv column already (point, seed and "
        "the headline metrics); name the parameter otherwise");
  CHECK(
      load_error(s, "parameters:\n  seed: {target: \"services[0].traffic.factor\", values: [2]}\n")
          .starts_with(":3:3: parameters: \"seed\" is a results.csv column already"));
  CHECK(load_error(s,
                   "parameters:\n  surge: {target: \"services[0].name\", values: [\"a\\nb\"]}\n") ==
        ":3:48: parameters.surge.values[0]: a value is written to one results.csv line: it cannot "
        "hold a newline");
}

TEST_CASE("a study's seeds and points are not repeated and not empty or too many", "[study]") {
  Scratch s;
  CHECK(load_error(s, std::string(kFactor) + "seeds: [5, 6, 5]\n") ==
        ":6:15: seeds[2]: seed 5 is listed twice: its runs would be the same");
  CHECK(load_error(s, std::string(kFactor) + "points: []\n") ==
        ":6:9: points: no points; leave points: out to run the grid of the values");
  CHECK(load_error(s, std::string(kFactor) + "points: [{surge: 2}, {surge: 4}, {surge: 2}]\n") ==
        ":6:34: points[2]: the same values as points[0]: each would run twice");
  std::string many = "points: [";
  for (int i = 0; i <= 100'000; ++i) many += "{surge: 2},";
  many += "]\n";
  CHECK(load_error(s, std::string(kFactor) + many) ==
        ":6:9: points: 100001 points; a study takes at most 100000");
}

TEST_CASE("range values are the shortest text that stays distinct", "[study]") {
  // {:g} printed both as 1e+06, and 0.1 + 2 × 0.1 as 0.30000000000000004.
  CHECK(range_texts(1'000'000, 1, 2) == std::vector<std::string>{"1000000", "1000001"});
  CHECK(range_texts(0.1, 0.1, 3) == std::vector<std::string>{"0.1", "0.2", "0.3"});
  CHECK(range_texts(1.0000001, 0.0000001, 2) == std::vector<std::string>{"1.0000001", "1.0000002"});
  CHECK(range_texts(2, 2, 2) == std::vector<std::string>{"2", "4"});
  CHECK(range_count(0.1, 0.3, 0.1) == 3);
}

// Issue 25, item 8: a bad value is named where the study writes it, not at line 1 of the
// scenario or manifest its copy was put into.
TEST_CASE("an error in a study's value names the study's line of it", "[study]") {
  Scratch s;
  CHECK(load_error(s,
                   "parameters:\n  surge:\n    target: services[0].traffic.factor\n"
                   "    values: [2, lots]\n") ==
        ":5:17: points[1].surge: services[0].traffic.factor: expected a finite number, got "
        "\"lots\"");
  CHECK(load_error(s,
                   "parameters:\n  serving:\n    target: services[0].serving\n    values:\n"
                   "      - {concurrency: 4, service_time: {model: llm, slowdown: x}}\n") ==
        ":6:63: points[0].serving: services[0].serving.service_time.slowdown: expected a finite "
        "number, got \"x\"");
  CHECK(load_error(s,
                   "parameters:\n  after:\n    target: \"NodePool/gpu-shared: "
                   "spec.disruption.consolidateAfter\"\n    values: [30s, soon]\n") ==
        ":5:19: points[1].after: spec.disruption.consolidateAfter: \"soon\" is not a duration "
        "Karpenter accepts: whole hours, minutes and seconds (90s, 5m, 1h30m) or Never (its CRD's "
        "pattern ^(([0-9]+(s|m|h))+|Never)$)");
  CHECK(load_error(s,
                   "parameters:\n  at:\n    target: services[0].traffic.at\n"
                   "    range: {from: 1, to: 2, step: 1}\n") ==
        ":5:12: points[0].at: services[0].traffic.at: invalid duration \"1\"; use Go forms such "
        "as 90s, 5m or 1h30m");
}
