
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/traffic/traffic.hpp"
#include "unit/core/temp_trace.hpp"

using namespace fleetsim;
using Catch::Matchers::Contains;

namespace {

RngStream stream(std::uint64_t seed = 42) { return RngStream(seed, "traffic-test"); }

using test::TempTrace;

// The first n requests (fewer if the source ends).
std::vector<Request> take(TrafficSource& source, std::size_t n) {
  std::vector<Request> out;
  while (out.size() < n) {
    auto r = source.next();
    if (!r) break;
    out.push_back(*r);
  }
  return out;
}

std::vector<std::int64_t> arrivals_us(const std::vector<Request>& requests) {
  std::vector<std::int64_t> out;
  for (const Request& r : requests) out.push_back(r.arrival.time_since_epoch().count());
  return out;
}

// Replays the whole of a (non-looping) trace.
std::vector<Request> replay(ReplayConfig config, std::uint64_t seed = 42) {
  ReplaySource source(config, stream(seed));
  return take(source, 1'000'000);
}

// The error building a replay of `content` raises, with the temp path shown as "trace.csv".
std::string error_of(const std::string& content, ReplayConfig config = {}) {
  TempTrace trace(content);
  config.trace = trace.path();
  try {
    replay(config);
  } catch (const InputError& e) {
    std::string what = e.what();
    const std::string file = trace.path().string();
    for (std::size_t at = what.find(file); at != std::string::npos; at = what.find(file)) {
      what.replace(at, file.size(), "trace.csv");
    }
    return what;
  }
  return "";
}

// Five requests as the Azure LLM inference trace publishes them (CRLF line endings). The last
// timestamp is 5.3194105 s after the first: half a microsecond rounds up.
const std::string kAzure =
    "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
    "2023-11-16 18:15:46.6805900,374,44\r\n"
    "2023-11-16 18:15:50.9951690,396,109\r\n"
    "2023-11-16 18:15:51.2224670,879,55\r\n"
    "2023-11-16 18:15:51.3910170,91,16\r\n"
    "2023-11-16 18:15:52.0000005,2,7";
const std::vector<std::int64_t> kAzureUs = {0, 4'314'579, 4'541'877, 4'710'427, 5'319'411};

const std::string kAzureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

}  // namespace

TEST_CASE("an Azure trace replays with exact arrival times and tokens", "[traffic]") {
  TempTrace trace(kAzure);
  const auto requests = replay({.trace = trace.path()});
  CHECK(arrivals_us(requests) == kAzureUs);
  REQUIRE(requests.size() == 5);
  CHECK(requests[0] == Request{.arrival = kSimStart, .input_tokens = 374, .output_tokens = 44});
  CHECK(requests[1].input_tokens == 396);
  CHECK(requests[1].output_tokens == 109);
  CHECK(requests[4].input_tokens == 2);
  CHECK(requests[4].output_tokens == 7);

  ReplaySource source({.trace = trace.path()}, stream());
  CHECK(source.summary().layout == RequestTraceLayout::Azure);
  CHECK(source.summary().rows == 5);
  CHECK(source.summary().first == micros(0));
  CHECK(source.summary().last == micros(5'319'411));
  CHECK(take(source, 10).size() == 5);
  CHECK_FALSE(source.next());
  CHECK_FALSE(source.next());
}

TEST_CASE("Azure timestamps cross midnight, month and year ends", "[traffic]") {
  TempTrace trace(kAzureHeader +
                  "2023-12-31 23:59:59.9,1,1\n"
                  "2024-01-01T00:00:00.1000000,1,1\n"
                  "2024-01-01 00:00:01,1,1\n"
                  "2024-02-29 00:00:01.000000001,1,1\n");
  const auto requests = replay({.trace = trace.path()});
  const std::int64_t day_us = 86'400'000'000;
  CHECK(arrivals_us(requests) ==
        std::vector<std::int64_t>{0, 200'000, 1'100'000, (31 + 28) * day_us + 1'100'000});
}

TEST_CASE("time scale stretches and compresses the trace exactly", "[traffic]") {
  TempTrace trace(kAzure);
  CHECK(arrivals_us(replay({.trace = trace.path(), .time_scale = 2})) ==
        std::vector<std::int64_t>{0, 8'629'158, 9'083'754, 9'420'854, 10'638'822});
  CHECK(arrivals_us(replay({.trace = trace.path(), .time_scale = 0.25})) ==
        std::vector<std::int64_t>{0, 1'078'645, 1'135'469, 1'177'607, 1'329'853});
}

TEST_CASE("rate scale duplicates or thins rows", "[traffic]") {
  TempTrace trace(kAzure);
  const auto doubled = replay({.trace = trace.path(), .rate_scale = 2});
  REQUIRE(doubled.size() == 10);
  const auto once = replay({.trace = trace.path()});
  for (std::size_t i = 0; i < 10; ++i) CHECK(doubled[i] == once[i / 2]);
  CHECK(replay({.trace = trace.path(), .rate_scale = 3}).size() == 15);

  // A fractional scale keeps each row's extra copy with probability 0.5, over many loops.
  ReplaySource half({.trace = trace.path(), .rate_scale = 1.5, .loop = true}, stream());
  const auto requests = take(half, 15'000);  // about 2,000 loops of 5 rows
  const double loops = static_cast<double>(requests.back().arrival.time_since_epoch().count()) /
                       static_cast<double>(half.loop_period().count());
  const double per_row = static_cast<double>(requests.size()) / (loops * 5);
  CHECK(std::abs(per_row - 1.5) < 0.05);

  ReplaySource thin({.trace = trace.path(), .rate_scale = 0.5, .loop = true}, stream());
  ReplaySource thin_again({.trace = trace.path(), .rate_scale = 0.5, .loop = true}, stream());
  CHECK(take(thin, 3000) == take(thin_again, 3000));  // deterministic in the seed
}

TEST_CASE("trace offset skips into the trace and start shifts the replay", "[traffic]") {
  TempTrace trace(kAzure);
  CHECK(arrivals_us(replay({.trace = trace.path(), .trace_offset = millis(4500)})) ==
        std::vector<std::int64_t>{41'877, 210'427, 819'411});
  CHECK(arrivals_us(replay({.trace = trace.path(), .start = seconds(10)})) ==
        std::vector<std::int64_t>{10'000'000, 14'314'579, 14'541'877, 14'710'427, 15'319'411});
  CHECK(arrivals_us(replay({.trace = trace.path(),
                            .time_scale = 2,
                            .trace_offset = millis(4500),
                            .start = seconds(10)})) ==
        std::vector<std::int64_t>{10'083'754, 10'420'854, 11'638'822});
}

TEST_CASE("looping restarts the trace with time continuing", "[traffic]") {
  TempTrace trace(kAzure);
  SECTION("the default period is the span plus the mean gap") {
    ReplaySource source({.trace = trace.path(), .loop = true}, stream());
    // 5,319,411 µs of span and a mean gap of 5,319,411 / 4 = 1,329,853 µs (rounded).
    CHECK(source.loop_period() == micros(6'649'264));
    const auto requests = take(source, 15);
    REQUIRE(requests.size() == 15);
    for (std::size_t i = 0; i < 15; ++i) {
      CHECK(requests[i].arrival.time_since_epoch().count() ==
            static_cast<std::int64_t>(i / 5) * 6'649'264 + kAzureUs[i % 5]);
      CHECK(requests[i].input_tokens == requests[i % 5].input_tokens);
    }
  }
  SECTION("an explicit period") {
    ReplaySource source({.trace = trace.path(), .loop = true, .loop_period = seconds(10)},
                        stream());
    const auto requests = take(source, 7);
    CHECK(arrivals_us(requests) == std::vector<std::int64_t>{0, 4'314'579, 4'541'877, 4'710'427,
                                                             5'319'411, 10'000'000, 14'314'579});
  }
  SECTION("with an offset, the loop replays from the offset") {
    ReplaySource source(
        {.trace = trace.path(), .time_scale = 2, .trace_offset = millis(4500), .loop = true},
        stream());
    // Span 819,411 µs from the offset plus the mean gap of the three rows, 388,767 µs.
    CHECK(source.loop_period() == micros(1'208'178));
    CHECK(arrivals_us(take(source, 6)) ==
          std::vector<std::int64_t>{83'754, 420'854, 1'638'822, 2'416'356 + 83'754,
                                    2'416'356 + 420'854, 2'416'356 + 1'638'822});
  }
}

TEST_CASE("the simple and Mooncake layouts are detected by their headers", "[traffic]") {
  TempTrace simple(
      "time_s,input_tokens,output_tokens\n"
      "0.5,100,10\n"
      "1.25,200,20.0\n"
      "1.25,300,30\n");
  ReplaySource s({.trace = simple.path()}, stream());
  CHECK(s.summary().layout == RequestTraceLayout::Simple);
  const auto a = take(s, 10);
  CHECK(arrivals_us(a) == std::vector<std::int64_t>{500'000, 1'250'000, 1'250'000});  // as is
  CHECK(a[1].output_tokens == 20);

  TempTrace mooncake(
      "timestamp_ms,input_length,output_length,num_prefix_hash_blocks\n"
      "0,6758,500,14\n"
      "0,7322,490,15\n"
      "1500,7236,794,15\n");
  ReplaySource m({.trace = mooncake.path()}, stream());
  CHECK(m.summary().layout == RequestTraceLayout::Mooncake);
  const auto b = take(m, 10);
  CHECK(arrivals_us(b) == std::vector<std::int64_t>{0, 0, 1'500'000});
  CHECK(b[2] == Request{.arrival = at(millis(1500)), .input_tokens = 7236, .output_tokens = 794});

  // Column order is free.
  TempTrace reordered(
      "GeneratedTokens,TIMESTAMP,ContextTokens\n"
      "44,2023-11-16 18:15:46.68059,374\n");
  CHECK(replay({.trace = reordered.path()}) ==
        std::vector<Request>{{.arrival = kSimStart, .input_tokens = 374, .output_tokens = 44}});
  // Another column would be dropped unseen: an error (issue 25, item 8).
  TempTrace extra(
      "GeneratedTokens,note,TIMESTAMP,ContextTokens\n"
      "44,\"a, b\",2023-11-16 18:15:46.68059,374\n");
  try {
    replay({.trace = extra.path()});
    FAIL("an unknown column was accepted");
  } catch (const TraceError& e) {
    CHECK(std::string(e.what()) == extra.path().string() +
                                       ":1:17: note: unknown column, not read; the trace reads "
                                       "TIMESTAMP,ContextTokens,GeneratedTokens");
  }
}

TEST_CASE("a trace with a BOM, CRLF line ends and quoted fields replays", "[traffic]") {
  // As Excel saves the Azure trace: a byte-order mark, CRLF, and every field quoted.
  TempTrace azure(
      "\xEF\xBB\xBF\"TIMESTAMP\",\"ContextTokens\",\"GeneratedTokens\"\r\n"
      "\"2023-11-16 18:15:46.6805900\",\"374\",\"44\"\r\n"
      "\"2023-11-16 18:15:50.9951690\",396,109\r\n"
      "\r\n");
  const RequestTraceSummary summary = scan_request_trace(azure.path());
  CHECK(summary.layout == RequestTraceLayout::Azure);
  CHECK(summary.rows == 2);
  const auto requests = replay({.trace = azure.path()});
  CHECK(arrivals_us(requests) == std::vector<std::int64_t>{0, 4'314'579});
  CHECK(requests[0].input_tokens == 374);
  CHECK(requests[0].output_tokens == 44);

  TempTrace simple("\xEF\xBB\xBFtime_s,input_tokens,output_tokens\r\n0.5,100,10\r\n");
  CHECK(
      replay({.trace = simple.path()}) ==
      std::vector<Request>{{.arrival = at(millis(500)), .input_tokens = 100, .output_tokens = 10}});
}

TEST_CASE("the shipped traces replay in full", "[traffic]") {
  const std::filesystem::path dir = std::filesystem::path(FLEETSIM_SOURCE_DIR) / "scenarios/traces";
  struct Expected {
    const char* file;
    RequestTraceLayout layout;
    std::int64_t rows;
    std::int64_t last_us;
    Request first;
  };
  const Expected cases[] = {
      {"azure-conv-10m.csv",
       RequestTraceLayout::Azure,
       2867,
       599'971'336,
       {.arrival = kSimStart, .input_tokens = 374, .output_tokens = 44}},
      {"azure-code-10m.csv",
       RequestTraceLayout::Azure,
       1482,
       585'903'294,
       {.arrival = kSimStart, .input_tokens = 4808, .output_tokens = 10}},
      {"mooncake-conv-10m.csv",
       RequestTraceLayout::Mooncake,
       1750,
       597'000'000,
       {.arrival = kSimStart, .input_tokens = 6758, .output_tokens = 500}},
  };
  for (const Expected& e : cases) {
    INFO(e.file);
    const RequestTraceSummary summary = scan_request_trace(dir / e.file);
    CHECK(summary.layout == e.layout);
    CHECK(summary.rows == e.rows);
    CHECK(summary.last == micros(e.last_us));
    const auto requests = replay({.trace = dir / e.file});
    REQUIRE(requests.size() == static_cast<std::size_t>(e.rows));
    CHECK(requests.front() == e.first);
    CHECK(requests.back().arrival == at(micros(e.last_us)));
  }
}

TEST_CASE("a replay is a traffic source like the others", "[traffic]") {
  TempTrace trace(kAzure);
  auto source = make_traffic_source(ReplayConfig{.trace = trace.path()}, stream());
  CHECK(arrivals_us(take(*source, 10)) == kAzureUs);
  // Surging a replay duplicates its rows inside the surge.
  auto surged = make_traffic_source(SurgeConfig{.base = ReplayConfig{.trace = trace.path()},
                                                .factor = 2,
                                                .start = millis(4500),
                                                .duration = seconds(10)},
                                    stream());
  CHECK(arrivals_us(take(*surged, 20)) == std::vector<std::int64_t>{0, 4'314'579, 4'541'877,
                                                                    4'541'877, 4'710'427, 4'710'427,
                                                                    5'319'411, 5'319'411});
}

// ---- errors -------------------------------------------------------------------------------------

TEST_CASE("a missing, empty or row-less trace is an error", "[traffic]") {
  const std::filesystem::path missing =
      std::filesystem::temp_directory_path() / "fleetsim-no-such-request-trace.csv";
  CHECK_THROWS_WITH(ReplaySource({.trace = missing}, stream()),
                    Contains(missing.string() + ": trace file not found"));
  CHECK_THAT(error_of(""), Contains("trace.csv:1:1: trace is empty; expected a header row such "
                                    "as \"TIMESTAMP,ContextTokens,GeneratedTokens\""));
  CHECK_THAT(error_of(kAzureHeader), Contains("trace.csv:1:1: trace has no rows (only a header)"));
  CHECK_THAT(error_of(kAzureHeader + "\n\n"), Contains("trace.csv:1:1: trace has no rows"));
}

TEST_CASE("an unknown header is an error", "[traffic]") {
  CHECK_THAT(error_of("ts,in,out\n1,2,3\n"),
             Contains("trace.csv:1:1: not a request trace: expected a header with "
                      "TIMESTAMP,ContextTokens,GeneratedTokens (Azure)"));
  CHECK_THAT(error_of("TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.68,1\n"),
             Contains("trace.csv:1:1: GeneratedTokens: required column of the Azure layout is "
                      "missing (the header is \"TIMESTAMP,ContextTokens\")"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens,input_tokens\n1,2,3,4\n"),
             Contains("trace.csv:1:35: input_tokens: column appears twice (first at column 8)"));
}

TEST_CASE("decreasing timestamps are an error", "[traffic]") {
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:50.9951690,396,109\n"
                                     "2023-11-16 18:15:46.6805900,374,44\n"),
             Contains("trace.csv:3:1: TIMESTAMP: timestamps must not decrease: "
                      "2023-11-16 18:15:46.6805900 after 2023-11-16 18:15:50.9951690"));
  // 100 ns apart: the order is checked before rounding to microseconds.
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:50.0000002,1,1\n"
                                     "2023-11-16 18:15:50.0000001,1,1\n"),
             Contains("trace.csv:3:1: TIMESTAMP: timestamps must not decrease"));
  CHECK_THAT(error_of("input_tokens,time_s,output_tokens\n1,2.5,1\n1,2.25,1\n"),
             Contains("trace.csv:3:3: time_s: timestamps must not decrease: 2.25 after 2.5"));
}

TEST_CASE("a malformed timestamp is an error at the offending character", "[traffic]") {
  const auto error = [](const std::string& timestamp) {
    return error_of(kAzureHeader + "2023-11-16 18:15:46.0,1,1\n" + timestamp + ",1,1\n");
  };
  CHECK_THAT(error("2023-11-16 18:15:4x.68"),
             Contains("trace.csv:3:19: TIMESTAMP: malformed timestamp \"2023-11-16 18:15:4x.68\": "
                      "'x' where a digit belongs; expected YYYY-MM-DD HH:MM:SS.fffffff"));
  CHECK_THAT(error("2023/11/16 18:15:46"), Contains("trace.csv:3:5: TIMESTAMP: malformed "
                                                    "timestamp \"2023/11/16 18:15:46\": '/' where "
                                                    "'-' belongs"));
  CHECK_THAT(error("2023-11-16"), Contains("trace.csv:3:11: TIMESTAMP: malformed timestamp "
                                           "\"2023-11-16\": it ends early"));
  CHECK_THAT(error("2023-13-16 18:15:46"), Contains("trace.csv:3:6: TIMESTAMP: malformed "
                                                    "timestamp \"2023-13-16 18:15:46\": month 13 "
                                                    "does not exist"));
  CHECK_THAT(error("2023-02-29 18:15:46"), Contains("trace.csv:3:9: TIMESTAMP: malformed "
                                                    "timestamp \"2023-02-29 18:15:46\": day 29 "
                                                    "does not exist in that month"));
  CHECK_THAT(error("2023-11-16 24:00:00"), Contains("trace.csv:3:12: TIMESTAMP: malformed "
                                                    "timestamp \"2023-11-16 24:00:00\": hour 24 "
                                                    "does not exist"));
  CHECK_THAT(error("2023-11-16 18:15:46."), Contains("trace.csv:3:21: TIMESTAMP: malformed "
                                                     "timestamp \"2023-11-16 18:15:46.\": no "
                                                     "digits after the decimal point"));
  CHECK_THAT(error("2023-11-16 18:15:46.1234567890"), Contains("more than 9 fractional digits"));
  CHECK_THAT(error("2023-11-16 18:15:46Z"), Contains("trace.csv:3:20: TIMESTAMP: malformed "
                                                     "timestamp \"2023-11-16 18:15:46Z\": 'Z' "
                                                     "where '.' belongs"));
  CHECK_THAT(error("1066-10-14 09:00:00"), Contains("trace.csv:3:1: TIMESTAMP: malformed "
                                                    "timestamp \"1066-10-14 09:00:00\": the year "
                                                    "must be between 1900 and 2200"));
  CHECK_THAT(error(""), Contains("trace.csv:3:1: TIMESTAMP: is empty; expected a timestamp"));
  CHECK_THAT(error("2040-11-16 18:15:46"),
             Contains("trace.csv:3:1: TIMESTAMP: is over 10 years after the first row's "
                      "2023-11-16 18:15:46.0"));
}

TEST_CASE("bad numbers in a trace are errors at their column", "[traffic]") {
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:46.0,-5,1\n"),
             Contains("trace.csv:2:23: ContextTokens: must not be negative, got -5"));
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:46.0,12,many\n"),
             Contains("trace.csv:2:26: GeneratedTokens: expected a number, got \"many\""));
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:46.0,12.5,1\n"),
             Contains("trace.csv:2:23: ContextTokens: must be a whole number, got 12.5"));
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:46.0,2000000,1\n"),
             Contains("trace.csv:2:23: ContextTokens: must be at most 1048576, got 2000000"));
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:46.0,,1\n"),
             Contains("trace.csv:2:23: ContextTokens: is empty; expected a number"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens\n-1,1,1\n"),
             Contains("trace.csv:2:1: time_s: must not be negative, got -1"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens\nnan,1,1\n"),
             Contains("trace.csv:2:1: time_s: must be a finite number, got nan"));
  CHECK_THAT(error_of("timestamp_ms,input_length,output_length\n1e15,1,1\n"),
             Contains("trace.csv:2:1: timestamp_ms: must be at most 10 years, got 1e15"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens\n1,1,1,1\n"),
             Contains("trace.csv:2:7: expected 3 fields as in the header, found 4"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens\n1,1,1\n\n2,1,1\n"),
             Contains("trace.csv:3:1: blank line inside the trace"));
}

TEST_CASE("bad replay options are ConfigErrors at their location", "[traffic]") {
  const SourceLocation where{"scenario.yaml", 3, 7};
  CHECK_THAT(error_of(kAzure, {.time_scale = 0, .where = where}),
             Contains("scenario.yaml:3:7: time_scale: must be between 0.001 and 1000, got 0"));
  CHECK_THAT(error_of(kAzure, {.rate_scale = -1, .where = where}),
             Contains("scenario.yaml:3:7: rate_scale: must be between 0.001 and 1000, got -1"));
  CHECK_THAT(error_of(kAzure, {.rate_scale = NAN, .where = where}),
             Contains("scenario.yaml:3:7: rate_scale: must be a finite number, got nan"));
  CHECK_THAT(error_of(kAzure, {.trace_offset = seconds(-1), .where = where}),
             Contains("scenario.yaml:3:7: trace_offset: must not be negative, got -1s"));
  CHECK_THAT(error_of(kAzure, {.trace_offset = minutes(1), .where = where}),
             Contains("scenario.yaml:3:7: trace_offset: 1m0s is past the trace's last request "
                      "(at 5.319411s) in trace.csv"));
  CHECK_THAT(error_of(kAzure, {.loop = true, .loop_period = seconds(0), .where = where}),
             Contains("scenario.yaml:3:7: loop_period: must be positive, got 0s"));
  CHECK_THAT(error_of(kAzure, {.loop = true, .loop_period = seconds(5), .where = where}),
             Contains("scenario.yaml:3:7: loop_period: 5s is shorter than the replayed span of "
                      "5.319411s in trace.csv: the loops would overlap"));
  CHECK_THAT(error_of(kAzureHeader + "2023-11-16 18:15:46.0,1,1\n", {.loop = true, .where = where}),
             Contains("scenario.yaml:3:7: loop_period: is needed to loop trace.csv"));
  // The same one-row trace loops with a period, and plays once without looping.
  TempTrace one(kAzureHeader + "2023-11-16 18:15:46.0,1,1\n");
  ReplaySource looped({.trace = one.path(), .loop = true, .loop_period = seconds(2)}, stream());
  CHECK(arrivals_us(take(looped, 3)) == std::vector<std::int64_t>{0, 2'000'000, 4'000'000});
  CHECK(replay({.trace = one.path()}).size() == 1);
}

TEST_CASE("a replay's rate after all scaling stays within the cap (issue 13, class 3)",
          "[traffic]") {
  // Five requests over 5.32 s, compressed 1000× and multiplied 1000×: about 940,000/s, within.
  CHECK(error_of(kAzure, {.time_scale = 0.001, .rate_scale = 1000}).empty());
  // Ten requests within 0.9 s the same way: 11 million/s, each scale within its own bounds.
  std::string dense = "time_s,input_tokens,output_tokens\n";
  for (int i = 0; i < 10; ++i) dense += fmt::format("{}.{},10,10\n", i / 10, i % 10);
  CHECK_THAT(error_of(dense, {.time_scale = 0.001, .rate_scale = 1000}),
             Contains("rate_scale: with time_scale 0.001 the replay of trace.csv arrives at "
                      "11111111 requests per second; at most 1000000"));
}
