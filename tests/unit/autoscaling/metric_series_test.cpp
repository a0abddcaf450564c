#include "fleetsim/autoscaling/metric_series.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/core/error.hpp"
#include "unit/core/temp_trace.hpp"

using namespace fleetsim;

namespace {

std::string error_of(const std::string& text) {
  try {
    MetricSeries::parse(text, "s.csv");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

SimTime t(std::int64_t s) { return at(seconds(s)); }

}  // namespace

TEST_CASE("the value in effect is the last sample at or before the time", "[autoscaling]") {
  MetricSeries s = MetricSeries::parse("time_s,value\n10,1\n30,2\n30,3\n60.5,4\n", "s.csv");
  CHECK_FALSE(s.value_at(t(0)));  // before the first sample the metric is missing
  CHECK(s.value_at(t(10)) == 1.0);
  CHECK(s.value_at(t(29)) == 1.0);
  CHECK(s.value_at(t(30)) == 3.0);  // of samples at the same time the last counts
  CHECK(s.value_at(t(60)) == 3.0);
  CHECK(s.value_at(at(millis(60'500))) == 4.0);
  CHECK(s.value_at(t(100'000)) == 4.0);
  CHECK(s.last_time() == at(millis(60'500)));
}

TEST_CASE("series columns come in any order, with blanks, CRLF and extra columns",
          "[autoscaling]") {
  MetricSeries s = MetricSeries::parse("note, value ,time_s\r\nx, 5 ,0\r\ny,7,15\r\n\r\n", "s.csv");
  CHECK(s.samples().size() == 2);
  CHECK(s.value_at(t(0)) == 5.0);
  CHECK(s.value_at(t(15)) == 7.0);
}

TEST_CASE("bad series name file, line, column and field", "[autoscaling]") {
  CHECK(error_of("time_s,value\n0,abc\n") == "s.csv:2:3: value: expected a number, got \"abc\"");
  CHECK(error_of("time_s,value\n10,1\n5,2\n") ==
        "s.csv:3:1: time_s: times must not decrease: 5 follows 10");
  CHECK(error_of("time,value\n0,1\n") ==
        "s.csv:1:1: time_s: missing column (the header has: time, value)");
  CHECK(error_of("time_s,val\n0,1\n") ==
        "s.csv:1:1: value: missing column (the header has: time_s, val)");
  CHECK(error_of("time_s,value\n0,-1\n") == "s.csv:2:3: value: must not be negative, got -1");
  CHECK(error_of("time_s,value\n0,nan\n") == "s.csv:2:3: value: must be a finite number, got nan");
  CHECK(error_of("time_s,value\n0,\n") == "s.csv:2:3: value: is empty; expected a number");
  CHECK(error_of("time_s,value\n0\n") == "s.csv:2:2: expected 2 fields as in the header, found 1");
  CHECK(error_of("time_s,value\n0,1\n\n5,1\n") ==
        "s.csv:3:1: blank line inside the metric series (only trailing blank lines are allowed)");
  CHECK(error_of("") ==
        "s.csv:1:1: metric series is empty; expected a header row such as \"time_s,value\"");
  CHECK(error_of("time_s,value\n") == "s.csv:1:1: metric series has no rows (only a header)");
  CHECK(error_of("time_s,value,time_s\n") ==
        "s.csv:1:14: time_s: column appears twice (first at column 1)");
  CHECK(error_of("time_s,value\n\"0,1\n") ==
        "s.csv:2:1: unterminated quoted field (a quoted field must end on its line)");
}

TEST_CASE("a missing series file is a TraceError naming it", "[autoscaling]") {
  CHECK_THROWS_AS(MetricSeries::load("/nonexistent/series.csv"), TraceError);
  CHECK_THROWS_WITH(MetricSeries::load("/nonexistent/series.csv"),
                    "/nonexistent/series.csv: metric series file not found");
}

TEST_CASE("a series file with a BOM, CRLF line ends and quoted fields loads", "[autoscaling]") {
  test::TempTrace file(
      "\xEF\xBB\xBFtime_s,\"value\",note\r\n"
      "0,5,\"a, b\"\r\n"
      "15,\"7.5\",\"say \"\"hi\"\"\"\r\n"
      "\r\n");
  MetricSeries s = MetricSeries::load(file.path());
  REQUIRE(s.samples().size() == 2);
  CHECK(s.value_at(t(0)) == 5.0);
  CHECK(s.value_at(t(15)) == 7.5);
}
