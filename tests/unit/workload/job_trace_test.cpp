#include "fleetsim/workload/job_trace.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "unit/core/temp_trace.hpp"

using namespace fleetsim;
using Catch::Matchers::Contains;

namespace {

std::vector<JobArrival> read_all(const test::TempTrace& trace) {
  JobTraceReader reader(trace.path());
  std::vector<JobArrival> jobs;
  while (auto job = reader.next()) jobs.push_back(*job);
  return jobs;
}

// The error reading the whole trace raises, with the path shown as "trace.csv" so the checks
// read like what a user sees; "" if none.
std::string error_of(const std::string& content) {
  test::TempTrace trace(content);
  try {
    read_all(trace);
  } catch (const TraceError& e) {
    std::string what = e.what();
    const std::string file = trace.path().string();
    if (what.starts_with(file)) what = "trace.csv" + what.substr(file.size());
    return what;
  }
  return "";
}

const std::string kHeader = "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n";

}  // namespace

TEST_CASE("a good trace reads every row in order", "[workload]") {
  test::TempTrace trace(
      "name,submit_time_s,gpus,duration_s,cpu_millis,memory_mib,priority\n"
      "train-a,0,8,3600,32000,262144,100\n"
      "\"eval, small\",12.5,1,90.25,4000,16384,\n"
      ",12.5,0,60,500,512,-5\n");
  const std::vector<JobArrival> jobs = read_all(trace);
  REQUIRE(jobs.size() == 3);

  CHECK(jobs[0].name == "train-a");
  CHECK(jobs[0].submit == kSimStart);
  CHECK(jobs[0].duration == hours(1));
  CHECK(jobs[0].gpus == 8);
  CHECK(jobs[0].cpu_millis == 32000);
  CHECK(jobs[0].memory_bytes == std::int64_t{262144} * 1024 * 1024);
  CHECK(jobs[0].priority == 100);
  CHECK(jobs[0].line == 2);

  CHECK(jobs[1].name == "eval, small");
  CHECK(jobs[1].submit == at(millis(12500)));
  CHECK(jobs[1].duration == millis(90250));
  CHECK_FALSE(jobs[1].priority.has_value());  // empty priority: the template decides

  CHECK(jobs[2].name == "job-3");           // empty name: generated from the data row
  CHECK(jobs[2].submit == jobs[1].submit);  // equal submit times are fine
  CHECK(jobs[2].priority == -5);
  CHECK(jobs[2].line == 4);
}

// A column nothing reads is an error, so that a capacity_type column is not believed to bill
// the jobs as spot (issue 25, item 8).
TEST_CASE("a column the reader does not read is an error", "[workload]") {
  CHECK(error_of("submit_time_s,duration_s,gpus,cpu_millis,memory_mib,capacity_type\n"
                 "0,60,1,1000,1024,spot\n") ==
        "trace.csv:1:53: capacity_type: unknown column, not read; the trace reads "
        "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,name,priority");
  CHECK(error_of("submit_time_s,duration_s,gpus,cpu_milis,memory_mib\n0,60,1,1000,1024\n") ==
        "trace.csv:1:31: cpu_milis: unknown column, not read; the trace reads "
        "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,name,priority; did you mean "
        "\"cpu_millis\"?");
}

TEST_CASE("a trace without a name column gets generated names", "[workload]") {
  test::TempTrace trace(kHeader + "1,10,1,1000,1024\n2,10,1,1000,1024\n");
  const std::vector<JobArrival> jobs = read_all(trace);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].name == "job-1");
  CHECK(jobs[1].name == "job-2");
}

TEST_CASE("CRLF line endings, a BOM and trailing blank lines are accepted", "[workload]") {
  test::TempTrace trace(
      "\xEF\xBB\xBFsubmit_time_s,duration_s,gpus,cpu_millis,memory_mib\r\n"
      "1,10,1,1000,1024\r\n"
      "2,20,2.0,2000,2048\r\n"
      "\r\n"
      "   \n");
  const std::vector<JobArrival> jobs = read_all(trace);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[1].gpus == 2);  // an integral decimal, as pandas writes
  CHECK(jobs[1].memory_bytes == std::int64_t{2048} * 1024 * 1024);
}

TEST_CASE("the reader streams: rows come one at a time and then the end", "[workload]") {
  test::TempTrace trace(kHeader + "1,10,1,1000,1024\n");
  JobTraceReader reader(trace.path());
  CHECK(reader.next());
  CHECK_FALSE(reader.next());
  CHECK_FALSE(reader.next());
}

TEST_CASE("a missing trace file is an error", "[workload]") {
  const std::filesystem::path missing =
      std::filesystem::temp_directory_path() / "fleetsim-no-such-trace.csv";
  try {
    JobTraceReader reader(missing);
    FAIL("expected a TraceError");
  } catch (const TraceError& e) {
    CHECK_THAT(e.what(), Contains(missing.string() + ": trace file not found"));
  }
}

TEST_CASE("an empty trace is an error", "[workload]") {
  CHECK_THAT(error_of(""), Contains("trace.csv:1:1: trace is empty"));
  CHECK_THAT(error_of("\n"), Contains("trace.csv:1:1: the header row is blank"));
}

TEST_CASE("a trace with a header but no rows is an error", "[workload]") {
  CHECK_THAT(error_of(kHeader), Contains("trace.csv:1:1: trace has no rows"));
  CHECK_THAT(error_of(kHeader + "\n\n"), Contains("trace has no rows"));
}

TEST_CASE("a missing required column is an error on line 1", "[workload]") {
  CHECK_THAT(error_of("submit_time_s,duration_s,cpu_millis,memory_mib\n1,2,3,4\n"),
             Contains("trace.csv:1:1: gpus: missing column (the header has: "
                      "submit_time_s, duration_s, cpu_millis, memory_mib)"));
}

TEST_CASE("a column named twice is an error", "[workload]") {
  CHECK_THAT(error_of("submit_time_s,duration_s,gpus,cpu_millis,memory_mib,gpus\n"),
             Contains("trace.csv:1:53: gpus: column appears twice (first at column 26)"));
}

TEST_CASE("a row with the wrong number of fields is an error", "[workload]") {
  CHECK_THAT(error_of(kHeader + "1,10,1,1000,1024,7\n"),
             Contains("trace.csv:2:18: expected 5 fields as in the header, found 6"));
  CHECK_THAT(error_of(kHeader + "1,10,1,1000\n"),
             Contains("trace.csv:2:12: expected 5 fields as in the header, found 4"));
}

TEST_CASE("a non-numeric value is an error at its column", "[workload]") {
  CHECK_THAT(error_of(kHeader + "1,10,one,1000,1024\n"),
             Contains("trace.csv:2:6: gpus: expected a number, got \"one\""));
  CHECK_THAT(error_of(kHeader + "1,10s,1,1000,1024\n"),
             Contains("trace.csv:2:3: duration_s: expected a number, got \"10s\""));
  CHECK_THAT(error_of(kHeader + "1,10,1,1000,16Gi\n"),
             Contains("trace.csv:2:13: memory_mib: expected a number, got \"16Gi\""));
  CHECK_THAT(error_of(kHeader + "1,10,1,,1024\n"),
             Contains("trace.csv:2:8: cpu_millis: is empty; expected a number"));
  CHECK_THAT(error_of(kHeader + "1,10,1.5,1000,1024\n"),
             Contains("trace.csv:2:6: gpus: must be a whole number, got 1.5"));
}

TEST_CASE("columns count characters, not bytes", "[workload]") {
  CHECK_THAT(error_of("name,submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n"
                      "entraînement,1,10,x,1000,1024\n"),
             Contains("trace.csv:2:19: gpus: expected a number"));
}

TEST_CASE("negative values are errors", "[workload]") {
  CHECK_THAT(error_of(kHeader + "-1,10,1,1000,1024\n"),
             Contains("trace.csv:2:1: submit_time_s: must not be negative, got -1"));
  CHECK_THAT(error_of(kHeader + "1,-10,1,1000,1024\n"),
             Contains("trace.csv:2:3: duration_s: must not be negative, got -10"));
  CHECK_THAT(error_of(kHeader + "1,10,-1,1000,1024\n"),
             Contains("trace.csv:2:6: gpus: must not be negative, got -1"));
  CHECK_THAT(error_of(kHeader + "1,10,1,-1000,1024\n"),
             Contains("trace.csv:2:8: cpu_millis: must not be negative, got -1000"));
  CHECK_THAT(error_of(kHeader + "1,10,1,1000,-1024\n"),
             Contains("trace.csv:2:13: memory_mib: must not be negative, got -1024"));
}

TEST_CASE("NaN and infinity are errors", "[workload]") {
  CHECK_THAT(error_of(kHeader + "nan,10,1,1000,1024\n"),
             Contains("trace.csv:2:1: submit_time_s: must be a finite number, got nan"));
  CHECK_THAT(error_of(kHeader + "1,inf,1,1000,1024\n"),
             Contains("trace.csv:2:3: duration_s: must be a finite number, got inf"));
  CHECK_THAT(error_of(kHeader + "1,1e999,1,1000,1024\n"),
             Contains("trace.csv:2:3: duration_s: must be a finite number, got 1e999"));
  CHECK_THAT(error_of(kHeader + "1,10,NaN,1000,1024\n"),
             Contains("trace.csv:2:6: gpus: must be a finite number, got NaN"));
}

TEST_CASE("absurd values are errors", "[workload]") {
  CHECK_THAT(error_of(kHeader + "1,10,65,1000,1024\n"),
             Contains("trace.csv:2:6: gpus: must be at most 64, got 65"));
  CHECK_THAT(error_of(kHeader + "1,31536001,1,1000,1024\n"),
             Contains("trace.csv:2:3: duration_s: must be at most 365 days, got 31536001"));
  CHECK_THAT(error_of(kHeader + "1,10,1,1000,67108865\n"),
             Contains("trace.csv:2:13: memory_mib: must be at most 67108864, got 67108865"));
  CHECK_THAT(error_of(kHeader + "1,10,1,1000,99999999999999999999999\n"),
             Contains("trace.csv:2:13: memory_mib: must be at most 67108864"));
  CHECK_THAT(error_of(kHeader + "1,10,1,5000000,1024\n"),
             Contains("trace.csv:2:8: cpu_millis: must be at most 4096000, got 5000000"));
  CHECK_THAT(error_of(kHeader + "1e12,10,1,1000,1024\n"),
             Contains("trace.csv:2:1: submit_time_s: must be at most 10 years, got 1e12"));
  CHECK_THAT(error_of("submit_time_s,duration_s,gpus,cpu_millis,memory_mib,priority\n"
                      "1,10,1,1000,1024,3000000000\n"),
             Contains("trace.csv:2:18: priority: must be at most 2147483647, got 3000000000"));
  // The largest real values pass.
  CHECK(error_of(kHeader + "1,31536000,64,4096000,67108864\n").empty());
}

TEST_CASE("decreasing submit times are an error", "[workload]") {
  CHECK_THAT(
      error_of(kHeader + "30,10,1,1000,1024\n12.5,10,1,1000,1024\n"),
      Contains("trace.csv:3:1: submit_time_s: submit times must not decrease: 12.5 after 30"));
}

TEST_CASE("a blank line inside the trace is an error", "[workload]") {
  CHECK_THAT(error_of(kHeader + "1,10,1,1000,1024\n\n2,10,1,1000,1024\n"),
             Contains("trace.csv:3:1: blank line inside the trace"));
}

TEST_CASE("malformed quoting is an error", "[workload]") {
  CHECK_THAT(error_of("name," + kHeader + "\"unclosed,1,10,1,1000,1024\n"),
             Contains("trace.csv:2:1: unterminated quoted field"));
  CHECK_THAT(error_of("name," + kHeader + "\"a\"b,1,10,1,1000,1024\n"),
             Contains("trace.csv:2:4: unexpected text after a closing quote"));
}

TEST_CASE("errors are TraceErrors carrying location and field", "[workload]") {
  test::TempTrace trace(kHeader + "1,10,x,1000,1024\n");
  JobTraceReader reader(trace.path());
  try {
    reader.next();
    FAIL("expected a TraceError");
  } catch (const TraceError& e) {
    CHECK(e.where().file == trace.path().string());
    CHECK(e.where().line == 2);
    CHECK(e.where().col == 6);
    CHECK(e.field() == "gpus");
  }
}
