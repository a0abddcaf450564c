// What validate prints for trace inputs that never take effect (issue 25, item 8).
#include <catch2/catch.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

constexpr std::string_view kJob =
    "{apiVersion: batch/v1, kind: Job, metadata: {name: train}, spec: {template: {spec: "
    "{restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}}";

std::string scenario(const Scratch& s, const std::string& trace) {
  s.write("pools.yaml", kG5Pool);
  s.write("jobs.csv", trace);
  return s
      .write("scenario.yaml",
             "name: w\nduration: 1h\nmanifests: [pools.yaml]\njobs:\n  - {trace: "
             "jobs.csv, template: " +
                 std::string(kJob) + "}\n")
      .string();
}

}  // namespace

TEST_CASE("validate names late trace rows and refuses unread columns", "[cli]") {
  Scratch s("ignored-inputs");
  const std::string late =
      scenario(s,
               "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n0,60,0,100,100\n"
               "7200,60,0,100,100\n");
  const Run ok = s.fleetsim("validate " + late);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.err, Catch::Contains("warning: " + (s.dir / "jobs.csv").string() +
                                     ":3:1: jobs[0].trace: 1 of the trace's 2 rows start after "
                                     "the run ends (duration 1h0m0s), the first at line 3: they "
                                     "are never replayed [trace-rows-after-end]"));
  const Run suppressed = s.fleetsim("validate " + late + " --suppress trace-rows-after-end");
  CHECK(suppressed.err.find("trace-rows-after-end") == std::string::npos);

  const std::string column = scenario(
      s,
      "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,capacity_type\n0,60,0,100,100,spot\n");
  const Run bad = s.fleetsim("validate " + column);
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.err, Catch::Contains((s.dir / "jobs.csv").string() +
                                      ":1:53: capacity_type: unknown column, not read; the trace "
                                      "reads submit_time_s,duration_s,gpus,cpu_millis,memory_mib,"
                                      "name,priority"));
}
