// fleetsim sweep (issue 10, item 3): a study's points, and results that are the same bytes with
// any thread count, after a kill and a resume, and from merged shards.
#include "fleetsim/study/sweep.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fleetsim/study/merge.hpp"
#include "fleetsim/study/results_file.hpp"
#include "fleetsim/study/study.hpp"
#include "fleetsim/study/study_summary.hpp"

using namespace fleetsim;

namespace {

const std::filesystem::path kSource(FLEETSIM_SOURCE_DIR);

struct Scratch {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fleetsim-sweep-" + std::to_string(::getpid()));
  Scratch() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two parameters (2 × 2 points) × 3 seeds on the model-pair example: 12 runs of 6 hours.
std::string study_text() {
  return "scenario: " + (kSource / "scenarios/model-pair/scenario.yaml").string() +
         "\nseeds: 3\nparameters:\n"
         "  consolidate_after:\n"
         "    target: \"NodePool/gpu-shared: spec.disruption.consolidateAfter\"\n"
         "    values: [30s, 5m]\n"
         "  surge_factor:\n"
         "    target: services[0].traffic.factor\n"
         "    range: {from: 2, to: 4, step: 2}\n";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a study's grid, ranges, listed points and seeds", "[study]") {
  Scratch s;
  const Study grid = load_study(s.write("study.yaml", study_text()), kSource / "instance-catalog");
  REQUIRE(grid.points.size() == 4);
  // The last parameter varies fastest.
  CHECK(grid.points == std::vector<std::vector<std::size_t>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  CHECK(grid.parameters[1].texts == std::vector<std::string>{"2", "4"});
  CHECK(grid.seeds == std::vector<std::uint64_t>{5, 6, 7});  // model-pair's seed is 5
  const Study listed = load_study(
      s.write("listed.yaml", study_text() + "points:\n  - {consolidate_after: 15m, surge_factor: "
                                            "4}\n"),
      kSource / "instance-catalog");
  REQUIRE(listed.points.size() == 1);
  CHECK(listed.parameters[0].texts[listed.points[0][0]] == "15m");
  // A value no point can take is named with its point before anything runs.
  std::string bad = study_text();
  bad.replace(bad.find("[30s, 5m]"), 9, "[30s, soon]");
  CHECK_THAT(error_of([&] { load_study(s.write("bad.yaml", bad), kSource / "instance-catalog"); }),
             Catch::Contains("bad.yaml:6:19: points[2].consolidate_after: "
                             "spec.disruption.consolidateAfter: \"soon\" is not a duration "
                             "Karpenter accepts"));
  std::string typo = study_text();
  typo.replace(typo.find("gpu-shared"), 10, "gpu-shard");
  CHECK_THAT(
      error_of([&] { load_study(s.write("typo.yaml", typo), kSource / "instance-catalog"); }),
      Catch::EndsWith("no NodePool named \"gpu-shard\" in the scenario's manifests"));
  CHECK_THAT(error_of([&] {
               load_study(s.write("both.yaml", study_text() + "seed: 3\n"),
                          kSource / "instance-catalog");
             }),
             Catch::Contains("seed: unknown key; expected one of scenario, seeds, parameters, "
                             "points; did you mean \"seeds\"?"));
}

TEST_CASE(
    "a sweep's results are the same bytes with one thread or two, after a resume, and "
    "from merged shards",
    "[study]") {
  Scratch s;
  const auto catalogs = kSource / "instance-catalog";
  const Study study = load_study(s.write("study.yaml", study_text()), catalogs);
  auto sweep = [&](const std::string& out, unsigned jobs, unsigned shard = 0, unsigned shards = 1) {
    return run_sweep(study, {.out_dir = s.dir / out,
                             .catalog_root = catalogs,
                             .jobs = jobs,
                             .shard_index = shard,
                             .shard_count = shards});
  };
  const std::string one = slurp(sweep("one", 1));
  CHECK(std::count(one.begin(), one.end(), '\n') == 1 + 12);
  CHECK(slurp(sweep("two", 2)) == one);
  CHECK(std::filesystem::exists(s.dir / "one/reports/p3-s7.json"));

  // A kill mid-write: five whole rows and a torn sixth. The rerun keeps the five, drops the torn
  // one and runs the rest.
  std::filesystem::create_directories(s.dir / "killed");
  std::size_t cut = 0;
  for (int line = 0; line < 6; ++line) cut = one.find('\n', cut) + 1;
  s.write("killed/results.csv", one.substr(0, cut + 20));
  std::filesystem::copy_file(s.dir / "one/results.study.json", s.dir / "killed/results.study.json");
  std::size_t runs = 0;
  const auto resumed = run_sweep(study, {.out_dir = s.dir / "killed",
                                         .catalog_root = catalogs,
                                         .progress = [&](std::size_t, std::size_t) { ++runs; }});
  CHECK(runs == 7);
  CHECK(slurp(resumed) == one);

  std::vector<std::filesystem::path> shards;
  for (unsigned i = 0; i < 3; ++i) shards.push_back(sweep("shard" + std::to_string(i), 1, i, 3));
  CHECK(shards[1].filename() == "results-shard-1-of-3.csv");
  merge_results(shards, s.dir / "merged.csv");
  CHECK(slurp(s.dir / "merged.csv") == one);

  // The summary: one line per point, and the frontier of cost against misses.
  const StudySummary summary = summarize_results(s.dir / "one/results.csv");
  CHECK(summary.parameter_names == std::vector<std::string>{"consolidate_after", "surge_factor"});
  CHECK(summary.objective == "sla.miss_ratio");
  REQUIRE(summary.points.size() == 4);
  CHECK(summary.points[0].seeds == 3);
  CHECK(std::any_of(summary.points.begin(), summary.points.end(),
                    [](const PointSummary& p) { return p.on_frontier; }));
}

TEST_CASE("a results file of another study is refused, not appended to", "[study]") {
  Scratch s;
  const StudyRecord record{.digest = "fnv1a64:0000000000000001", .points = 1, .seeds = {1}};
  s.write("results.csv", "point,seed,x\n0,1,2\n");
  write_record(s.dir / "results.csv", record);
  CHECK_THAT(error_of([&] { ResultsFile(s.dir / "results.csv", "point,seed,y", record); }),
             Catch::EndsWith("written by another study, or by this one before its scenario, "
                             "parameters or points changed; use another --out, or delete it to "
                             "start over"));
  ResultsFile same(s.dir / "results.csv", "point,seed,x", record);
  CHECK(same.has(0, 1));
  CHECK_FALSE(same.has(0, 2));
}

// What a study's results depend on changes its digest; its seeds do not (a row names its seed).
TEST_CASE("a study's digest follows its values and scenario, not its seeds", "[study]") {
  Scratch s;
  const auto catalogs = kSource / "instance-catalog";
  const std::string base = load_study(s.write("a.yaml", study_text()), catalogs).digest;
  CHECK(base.starts_with("fnv1a64:"));
  std::string seeds = study_text();
  seeds.replace(seeds.find("seeds: 3"), 8, "seeds: [1, 2]");
  CHECK(load_study(s.write("b.yaml", seeds), catalogs).digest == base);
  std::string values = study_text();
  values.replace(values.find("[30s, 5m]"), 9, "[30s, 6m]");
  CHECK(load_study(s.write("c.yaml", values), catalogs).digest != base);
  std::string target = study_text();
  target.replace(target.find("services[0].traffic.factor"), 26, "services[0].traffic.base.rps");
  CHECK(load_study(s.write("d.yaml", target), catalogs).digest != base);
}
