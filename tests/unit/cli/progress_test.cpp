// Progress where stderr is not a terminal (issue 25, item 6): a plain line per tenth of a run's
// simulated time (run, check) or of a sweep's runs, on stderr only; --progress none and --quiet
// print none.
#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

// The elapsed seconds and the bounds' times, the parts that differ between runs, as "X".
std::string without_elapsed(const std::string& err) {
  const std::string out =
      std::regex_replace(err, std::regex(", [0-9]+\\.[0-9] s elapsed\\)"), ", X s elapsed)");
  return std::regex_replace(out, std::regex("[0-9]+\\.[0-9]{3} s"), "X s");
}

const std::string kTenLines =
    "progress: 10% (6m of 1h simulated, X s elapsed)\n"
    "progress: 20% (12m of 1h simulated, X s elapsed)\n"
    "progress: 30% (18m of 1h simulated, X s elapsed)\n"
    "progress: 40% (24m of 1h simulated, X s elapsed)\n"
    "progress: 50% (30m of 1h simulated, X s elapsed)\n"
    "progress: 60% (36m of 1h simulated, X s elapsed)\n"
    "progress: 70% (42m of 1h simulated, X s elapsed)\n"
    "progress: 80% (48m of 1h simulated, X s elapsed)\n"
    "progress: 90% (54m of 1h simulated, X s elapsed)\n"
    "progress: 100% (1h of 1h simulated, X s elapsed)\n";

// After a run, what each efficiency bound took (issue 28).
const std::string kBoundTimes = "efficiency bounds: fluid X s, packing X s\n";

}  // namespace

TEST_CASE("progress: ten plain lines on stderr for a run and a check, none when asked",
          "[cli][progress]") {
  Scratch s("progress-cli");
  s.write("pools.yaml", fleetsim::test::kG5Pool);
  const std::string scenario =
      s.write("scenario.yaml", "name: p\nduration: 1h\nmanifests: [pools.yaml]\n").string();
  const std::string run = "run " + scenario + " --warnings none --out " + (s.dir / "out").string();
  const Run plain = s.fleetsim(run);
  CHECK(plain.exit_code == 0);
  CHECK(without_elapsed(plain.err) == kTenLines + kBoundTimes);
  CHECK(plain.out.find("progress:") == std::string::npos);
  CHECK(without_elapsed(s.fleetsim(run + " --progress plain").err) == kTenLines + kBoundTimes);
  CHECK(s.fleetsim(run + " --progress none").err.empty());
  CHECK(s.fleetsim(run + " --quiet --progress plain").err.empty());
  CHECK(s.fleetsim(run + " --progress sometimes").exit_code == 2);

  const std::string check = "check " + scenario + " --warnings none --baseline " +
                            (s.dir / "baseline.json").string() + " --update-baseline";
  const Run checked = s.fleetsim(check);
  CHECK(checked.exit_code == 0);
  CHECK(without_elapsed(checked.err) == kTenLines);
  CHECK(s.fleetsim(check + " --progress none").err.empty());
}

TEST_CASE("progress: a sweep prints a plain line per tenth of its runs", "[cli][progress]") {
  Scratch s("progress-sweep-cli");
  s.write("pools.yaml", fleetsim::test::kG5Pool);
  s.write("scenario.yaml", "name: w\nduration: 10m\nmanifests: [pools.yaml]\n");
  const std::string study = s.write("study.yaml",
                                    "scenario: scenario.yaml\nparameters:\n  length:\n"
                                    "    target: duration\n    values: [10m, 20m, 30m]\n")
                                .string();
  const std::string sweep = "sweep " + study + " --warnings none --out " + (s.dir / "out").string();
  const Run plain = s.fleetsim(sweep);
  CHECK(plain.exit_code == 0);
  CHECK(without_elapsed(plain.err) ==
        "progress: 33% (1 of 3 runs, X s elapsed)\n"
        "progress: 66% (2 of 3 runs, X s elapsed)\n"
        "progress: 100% (3 of 3 runs, X s elapsed)\n");
  std::filesystem::remove_all(s.dir / "out");
  CHECK(s.fleetsim(sweep + " --progress none").err.empty());
}
