// Traces: a column nothing reads is an error (or a warning when documented as read past), and
// rows after the run's end are named (issue 25, item 8).
#include <catch2/catch.hpp>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

constexpr std::string_view kJob =
    "{apiVersion: batch/v1, kind: Job, metadata: {name: train}, spec: {template: {spec: "
    "{restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}}";

// A scenario in a scratch directory using the fixture catalog; `body` follows three fixed lines
// (duration 6h).
struct Scratch {
  test::TempDir dir;
  std::filesystem::path file;
  Scratch(std::string_view name, std::string_view body) : dir(name) {
    file = dir.write("scenario.yaml", "name: scratch\nduration: 6h\ncatalog: " +
                                          (test::fixtures() / "catalog/aws/us-east-1").string() +
                                          "\n" + std::string(body));
  }
  // The error's text: a ConfigError, or the TraceError of a trace's row.
  std::string error() const {
    try {
      load_scenario(file);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string path(std::string_view f) const { return (dir.path() / f).string(); }
};

// A scenario whose one job trace is `csv`.
std::unique_ptr<Scratch> with_jobs(std::string_view name, std::string_view csv) {
  auto s = std::make_unique<Scratch>(
      name, "jobs:\n  - {trace: jobs.csv, template: " + std::string(kJob) + "}\n");
  s->dir.write("jobs.csv", csv);
  return s;
}

std::vector<std::string> warnings_of(const ScenarioConfig& cfg, WarningCode code) {
  std::vector<std::string> out;
  for (const Warning& w : cfg.warnings)
    if (w.code == code) out.push_back(w.where.to_string() + ": " + w.field + ": " + w.message);
  return out;
}

}  // namespace

TEST_CASE("a job trace column fleetsim does not read is an error", "[scenario][traces]") {
  const auto s = with_jobs("jobs-capacity-type",
                           "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,capacity_type\n"
                           "0,60,0,1000,1024,spot\n");
  CHECK(s->error() == s->path("jobs.csv") +
                          ":1:53: capacity_type: unknown column, not read; the trace reads "
                          "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,name,priority");
  const auto typo = with_jobs("jobs-typo",
                              "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,priorty\n"
                              "0,60,0,1000,1024,5\n");
  CHECK(typo->error() == typo->path("jobs.csv") +
                             ":1:53: priorty: unknown column, not read; the trace reads "
                             "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,name,priority; "
                             "did you mean \"priority\"?");
}

TEST_CASE("a spot trace column fleetsim does not read is an error", "[scenario][traces]") {
  Scratch s("spot-column", "spot: {prices: prices.csv}\n");
  s.dir.write("prices.csv",
              "time_s,instance_type,zone,price,capacity_type\n0,g5.xlarge,us-east-1a,0.5,spot\n");
  CHECK(s.error() == s.path("prices.csv") +
                         ":1:33: capacity_type: unknown column, not read; the price trace reads "
                         "time_s,instance_type,zone,price");
}

TEST_CASE("job trace rows after the run's end are named", "[scenario][traces]") {
  const auto s = with_jobs("jobs-late",
                           "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n"
                           "0,60,0,1000,1024\n21600,60,0,1000,1024\n21601,60,0,1000,1024\n"
                           "30000,60,0,1000,1024\n");
  CHECK(warnings_of(load_scenario(s->file), WarningCode::TraceRowsAfterEnd) ==
        std::vector<std::string>{
            s->path("jobs.csv") +
            ":4:1: jobs[0].trace: 2 of the trace's 4 rows start after the run ends (duration "
            "6h0m0s), the first at line 4: they are never replayed"});
  const auto in_time =
      with_jobs("jobs-in-time",
                "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n21600,60,0,1000,1024\n");
  CHECK(warnings_of(load_scenario(in_time->file), WarningCode::TraceRowsAfterEnd).empty());
}

TEST_CASE("spot trace rows after the run's end are named", "[scenario][traces]") {
  Scratch s("spot-late", "spot: {availability: avail.csv, prices: prices.csv}\n");
  s.dir.write("avail.csv",
              "time_s,instance_type,zone,available\n0,g5.xlarge,us-east-1a,0\n"
              "30000,g5.xlarge,us-east-1a,1\n");
  s.dir.write("prices.csv", "time_s,instance_type,zone,price\n60,g5.xlarge,us-east-1a,0.5\n");
  CHECK(warnings_of(load_scenario(s.file), WarningCode::TraceRowsAfterEnd) ==
        std::vector<std::string>{
            s.path("avail.csv") +
            ":3:1: spot.availability: 1 of the trace's 2 rows start after the run ends "
            "(duration 6h0m0s), the first at line 3: they are never replayed"});
}

TEST_CASE("request trace columns: unknown is an error, Mooncake's hash blocks a warning",
          "[scenario][traces]") {
  const std::string models = (test::fixtures() / "services/models.yaml").string();
  auto replay = [&](std::string_view name, std::string_view csv) {
    auto s = std::make_unique<Scratch>(
        name, "manifests: [" + models +
                  "]\nservices:\n  - deployment: model-a\n    traffic: {pattern: replay, "
                  "trace: requests.csv}\n");
    s->dir.write("requests.csv", csv);
    return s;
  };
  const auto bad = replay("req-column", "time_s,input_tokens,output_tokens,model\n0,10,10,a\n");
  CHECK(bad->error() == bad->path("requests.csv") +
                            ":1:35: model: unknown column, not read; the trace reads "
                            "time_s,input_tokens,output_tokens");
  const auto mooncake = replay("req-mooncake",
                               "timestamp_ms,input_length,output_length,num_prefix_hash_blocks\n"
                               "0,10,10,3\n");
  const ScenarioConfig cfg = load_scenario(mooncake->file);
  REQUIRE(warnings_of(cfg, WarningCode::IgnoredTraceColumn).size() == 1);
  CHECK(warnings_of(cfg, WarningCode::IgnoredTraceColumn)[0].ends_with(
      ": services[0].traffic.trace.num_prefix_hash_blocks: column num_prefix_hash_blocks of "
      "requests.csv is not read: fleetsim models no prefix cache, so requests sharing a prefix "
      "cost what others do"));
  // Arrivals after the run: the row at 7h, with time_scale 1 and no offset.
  const auto late = replay("req-late", "time_s,input_tokens,output_tokens\n0,10,10\n25200,10,10\n");
  CHECK(warnings_of(load_scenario(late->file), WarningCode::TraceRowsAfterEnd) ==
        std::vector<std::string>{
            late->path("requests.csv") +
            ":3:1: services[0].traffic.trace: 1 of the trace's 2 rows start after the run ends "
            "(duration 6h0m0s), the first at line 3: they are never replayed"});
}
