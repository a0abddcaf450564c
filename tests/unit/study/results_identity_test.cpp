// A results file is known by the study that wrote it (issue 25, items 4 and 8): a resume keeps
// only this study's rows of runs it still has, bad rows are named by line, and merge joins
// exactly the shards of one study, each once, all of them unless told otherwise.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fleetsim/core/error.hpp"
#include "fleetsim/study/merge.hpp"
#include "fleetsim/study/results_file.hpp"
#include "fleetsim/study/study_record.hpp"

using namespace fleetsim;

namespace {

struct Scratch {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fleetsim-results-" + std::to_string(::getpid()));
  Scratch() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << text;
    return dir / name;
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Three points × seeds 5 and 6, in shards of two: shard 0 has points 0 and 2, shard 1 point 1.
StudyRecord record(unsigned shard = 0, unsigned shards = 1) {
  return {.digest = "fnv1a64:00000000000000aa",
          .points = 3,
          .seeds = {5, 6},
          .shard_index = shard,
          .shard_count = shards};
}

// A shard's file and record, with the rows of `runs` ("point,seed").
std::filesystem::path shard(const Scratch& s, const std::string& dir, unsigned index,
                            const std::vector<std::string>& runs, StudyRecord r) {
  std::string text = "point,seed,x\n";
  for (const std::string& run : runs) text += run + ",1\n";
  const auto file = s.write(dir + "/results-shard-" + std::to_string(index) + "-of-2.csv", text);
  write_record(file, r);
  return file;
}

}  // namespace

TEST_CASE("resume keeps only the rows of this study's runs", "[study]") {
  Scratch s;
  const auto results = s.write("results.csv", "point,seed,x\n0,5,1\n0,6,1\n2,7,1\n");
  // No record beside it: who wrote it is unknown.
  CHECK(error_of([&] { ResultsFile(results, "point,seed,x", record()); }) ==
        s.path("results.csv") +
            ": results: no study record (results.study.json) beside it, so the study that wrote "
            "it is unknown; use another --out, or delete it to start over");
  write_record(results, record());
  // The study's values changed: another digest.
  StudyRecord changed = record();
  changed.digest = "fnv1a64:00000000000000bb";
  CHECK(error_of([&] { ResultsFile(results, "point,seed,x", changed); }) ==
        s.path("results.csv") +
            ": results: written by another study, or by this one before its scenario, parameters "
            "or points changed; use another --out, or delete it to start over");
  // The same study with seed 6 dropped: its row goes, and so does a row of no run (seed 7).
  StudyRecord fewer = record();
  fewer.seeds = {5};
  {
    ResultsFile file(results, "point,seed,x", fewer);
    CHECK(file.has(0, 5));
    CHECK_FALSE(file.has(0, 6));
    CHECK_FALSE(file.has(2, 7));
    CHECK(file.notes() ==
          std::vector<std::string>{s.path("results.csv") +
                                   ": dropped 2 rows of runs the study does not have (seeds it no "
                                   "longer lists), from line 3: point 0 seed 6"});
  }
  CHECK(slurp(results) == "point,seed,x\n0,5,1\n");
  CHECK(read_record(results)->seeds == std::vector<std::uint64_t>{5});
}

TEST_CASE("a bad results row is named by its line", "[study]") {
  Scratch s;
  const auto results = s.write("results.csv", "point,seed,x\n0,5,1\nsome,thing\n");
  write_record(results, record());
  CHECK(error_of([&] { ResultsFile(results, "point,seed,x", record()); }) ==
        s.path("results.csv") + ":3: results: a row without its point: some,thing");
  s.write("results.csv", "point,seed,x\n0,5,1\n0,6,1\n0,5,2\n");
  CHECK(error_of([&] { ResultsFile(results, "point,seed,x", record()); }) ==
        s.path("results.csv") + ":4: results: a second row for point 0 seed 5, unlike line 2's");
}

TEST_CASE("merge takes every shard of one study once unless --allow-partial", "[study]") {
  Scratch s;
  const auto s0 = shard(s, "a", 0, {"0,5", "0,6", "2,5", "2,6"}, record(0, 2));
  const auto s1 = shard(s, "b", 1, {"1,5", "1,6"}, record(1, 2));
  // Leftovers beside a shard are not shards.
  s.write("a/results-shard-0-of-2.csv.tmp", "point,seed,x\n9,9,9\n");
  s.write("a/results-shard-0-of-2.csv.bak", "point,seed,x\n9,9,9\n");
  s.write("a/results-shard-01-of-2.csv", "point,seed,x\n9,9,9\n");
  CHECK(shard_files({s.dir / "a", s1}) == std::vector<std::filesystem::path>{s0, s1});
  std::filesystem::create_directories(s.dir / "out");
  std::filesystem::create_directories(s.dir / "partial");
  const MergeOutcome whole = merge_results({s0, s1}, s.dir / "out/results.csv");
  CHECK(whole.missing == 0);
  CHECK(slurp(s.dir / "out/results.csv") ==
        "point,seed,x\n0,5,1\n0,6,1\n1,5,1\n1,6,1\n2,5,1\n2,6,1\n");

  const std::string give =
      "; give every shard and finish each (rerun its sweep), or pass "
      "--allow-partial to merge what is there";
  CHECK(error_of([&] { merge_results({s0}, s.dir / "out/results.csv"); }) ==
        "merge: 2 of 6 runs missing: no shard 1 of 2 among the inputs" + give);
  CHECK(error_of([&] {
          merge_results({s0, s0}, s.dir / "out/results.csv");
        }) == s0.string() + ": results: shard 0 of 2 is given twice (also " + s0.string() +
                  "); give each shard once");
  const auto short1 = shard(s, "c", 1, {"1,6"}, record(1, 2));
  CHECK(error_of([&] {
          merge_results({s0, short1}, s.dir / "out/results.csv");
        }) == "merge: 1 of 6 runs missing: " + short1.string() +
                  " lacks point 1 seed 5 (its sweep stopped early)" + give);
  const MergeOutcome partial = merge_results({s0}, s.dir / "partial/results.csv", true);
  CHECK(partial.missing == 2);
  CHECK(partial.missing_text == "2 of 6 runs missing: no shard 1 of 2 among the inputs");
  CHECK(read_record(s.dir / "partial/results.csv")->missing_runs == 2);

  // Another study's shard, a row of another shard's point, conflicting copies of a row.
  StudyRecord other = record(1, 2);
  other.digest = "fnv1a64:00000000000000bb";
  const auto foreign = shard(s, "d", 1, {"1,5", "1,6"}, other);
  CHECK(error_of([&] {
          merge_results({s0, foreign}, s.dir / "out/results.csv");
        }) == foreign.string() + ": results: of another study than " + s0.string() +
                  " (their study digests differ); merge the shards of one study");
  const auto stray = shard(s, "e", 1, {"1,5", "2,5"}, record(1, 2));
  CHECK(error_of([&] {
          merge_results({s0, stray}, s.dir / "out/results.csv");
        }) == stray.string() + ":3: results: point 2 seed 5 is not a run of shard 1 of 2");
  const auto twice = s.write("f/results-shard-1-of-2.csv", "point,seed,x\n1,5,1\n1,5,2\n");
  write_record(twice, record(1, 2));
  CHECK(error_of([&] {
          merge_results({s0, twice}, s.dir / "out/results.csv");
        }) == twice.string() + ":3: results: a second row for point 1 seed 5, unlike line 2's");
  const auto unnamed = s.write("g/shard.csv", "point,seed,x\n");
  CHECK(error_of([&] { merge_results({unnamed}, s.dir / "out/results.csv"); }) ==
        unnamed.string() +
            ": results: not named results-shard-I-of-N.csv, so not a sweep shard's results");
  CHECK(error_of([&] { shard_files({s.dir / "g"}); }) ==
        s.path("g") + ": results: no results-shard-I-of-N.csv in this folder");
}
