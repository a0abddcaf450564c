// The benchmark patterns' traffic side: a batch at one instant, the closed loop's checks, and
// per-request token lengths read from a file.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/traffic/token_lengths.hpp"
#include "fleetsim/traffic/traffic.hpp"
#include "unit/core/temp_trace.hpp"

using namespace fleetsim;
using Catch::Matchers::Contains;
using test::TempTrace;

namespace {

RngStream stream() { return RngStream(42, "traffic-test"); }

const SourceLocation kWhere{"scenario.yaml", 12, 5};

// Every request of a source that ends.
std::vector<Request> all(TrafficSource& source) {
  std::vector<Request> out;
  while (auto r = source.next()) out.push_back(*r);
  return out;
}

// The (input, output) counts of the first n requests.
std::vector<std::pair<std::uint32_t, std::uint32_t>> counts(TrafficSource& source, std::size_t n) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  while (out.size() < n) {
    auto r = source.next();
    if (!r) break;
    out.emplace_back(r->input_tokens, r->output_tokens);
  }
  return out;
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// The error reading `content` as a lengths file, its path shown as "lengths.csv".
std::string lengths_error(const std::string& content) {
  TempTrace file(content);
  std::string what = error_of([&] { scan_token_lengths(file.path()); });
  const std::string path = file.path().string();
  for (std::size_t at = what.find(path); at != std::string::npos; at = what.find(path))
    what.replace(at, path.size(), "lengths.csv");
  return what;
}

}  // namespace

TEST_CASE("a batch is every request at one instant, then nothing", "[traffic]") {
  auto source = make_traffic_source(BatchConfig{.requests = 5,
                                                .at = seconds(30),
                                                .tokens = {.input = TokenDistribution::fixed(7),
                                                           .output = TokenDistribution::fixed(3)}},
                                    stream());
  const std::vector<Request> requests = all(*source);
  REQUIRE(requests.size() == 5);
  for (const Request& r : requests) CHECK(r == Request{at(seconds(30)), 7, 3});
  CHECK_FALSE(source->next());
}

TEST_CASE("a batch defaults to the scenario's start and the default chat lengths", "[traffic]") {
  BatchSource source(BatchConfig{.requests = 2}, stream());
  const std::vector<Request> requests = all(source);
  CHECK(requests == std::vector<Request>{{at(SimDuration::zero()), 1020, 129},
                                         {at(SimDuration::zero()), 1020, 129}});
}

TEST_CASE("batch and closed options are checked at their fields", "[traffic]") {
  auto batch = [](BatchConfig c) {
    c.where = kWhere;
    return error_of([&] { validate(c); });
  };
  CHECK(batch({.requests = 0}) ==
        "scenario.yaml:12:5: requests: must be between 1 and 10000000, got 0");
  CHECK(batch({.requests = 10'000'001}) ==
        "scenario.yaml:12:5: requests: must be between 1 and 10000000, got 10000001");
  CHECK(batch({.requests = 1, .at = seconds(-1)}) ==
        "scenario.yaml:12:5: at: must not be negative, got -1s");
  CHECK_THAT(batch({.requests = 1, .tokens = {.input = TokenDistribution::fixed(1.5)}}),
             Contains("tokens.input.median: a fixed count must be a whole number, got 1.5"));

  auto closed = [](ClosedConfig c) {
    c.where = kWhere;
    return error_of([&] { validate(c); });
  };
  CHECK(closed({.users = 0}) == "scenario.yaml:12:5: users: must be between 1 and 1000000, got 0");
  CHECK(closed({.users = -3}) ==
        "scenario.yaml:12:5: users: must be between 1 and 1000000, got -3");
  CHECK(closed({.users = 2, .think_time = millis(-5)}) ==
        "scenario.yaml:12:5: think_time: must not be negative, got -5ms");
  CHECK(closed({.users = 2, .requests = 0}) ==
        "scenario.yaml:12:5: requests: must be at least 1, got 0");
  CHECK(closed({.users = 2, .think_time = seconds(1), .requests = 10}) == "no error");
}

TEST_CASE("token lengths from a file are read in order and cycled", "[traffic]") {
  TempTrace file("input_tokens,output_tokens\n100,10\n200,20\n300,30\n");
  auto source =
      make_traffic_source(PoissonConfig{.rps = 5, .tokens = {.file = file.path()}}, stream());
  using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
  CHECK(counts(*source, 7) ==
        Pairs{{100, 10}, {200, 20}, {300, 30}, {100, 10}, {200, 20}, {300, 30}, {100, 10}});
  // The arrival times are the Poisson source's own: a lengths file changes only the tokens.
  auto plain = make_traffic_source(PoissonConfig{.rps = 5}, stream());
  auto with_file =
      make_traffic_source(PoissonConfig{.rps = 5, .tokens = {.file = file.path()}}, stream());
  for (int i = 0; i < 20; ++i) CHECK(plain->next()->arrival == with_file->next()->arrival);
}

TEST_CASE("a lengths file may be a request trace, its time column read past", "[traffic]") {
  TempTrace azure(
      "TIMESTAMP,GeneratedTokens,ContextTokens\n2023-11-16 18:15:46.68,12,4000\n"
      "2023-11-16 18:15:47.00,5,900\n");
  TokenLengthsFile a(azure.path());
  CHECK(a.next().input_tokens == 4000);
  const TokenLengths second = a.next();
  CHECK(second.input_tokens == 900);
  CHECK(second.output_tokens == 5);
  CHECK(a.next().output_tokens == 12);  // from the top again

  TempTrace mooncake("timestamp_ms,input_length,output_length,hash_ids\n0,6000,20,\"[1, 2]\"\n");
  BatchSource batch(BatchConfig{.requests = 2, .tokens = {.file = mooncake.path()}}, stream());
  CHECK(all(batch) == std::vector<Request>{{at(SimDuration::zero()), 6000, 20},
                                           {at(SimDuration::zero()), 6000, 20}});
  TempTrace simple("time_s,input_tokens,output_tokens\n0.5,7,8\n");
  CHECK(scan_token_lengths(simple.path()) == 1);
}

TEST_CASE("bad token lengths files are errors at file:line:col", "[traffic]") {
  CHECK_THAT(lengths_error(""), Contains("lengths.csv"));
  CHECK_THAT(lengths_error("input_tokens,output_tokens\n"),
             Contains("lengths.csv:1:1: token table has no rows"));
  CHECK_THAT(lengths_error("prompt,completion\n1,2\n"),
             Contains("lengths.csv:1:1: not a token table: expected a header with "
                      "input_tokens,output_tokens"));
  CHECK_THAT(lengths_error("input_tokens\n5\n"), Contains("lengths.csv:1:1"));
  CHECK_THAT(lengths_error("input_tokens\n5\n"), Contains("output_tokens"));
  CHECK_THAT(lengths_error("input_tokens,output_tokens,user\n1,2,3\n"),
             Contains("lengths.csv:1:28: user"));
  CHECK_THAT(lengths_error("input_tokens,output_tokens\n10,20\n30,x\n"),
             Contains("lengths.csv:3:4: output_tokens"));
  CHECK_THAT(lengths_error("input_tokens,output_tokens\n-1,20\n"),
             Contains("lengths.csv:2:1: input_tokens"));
  CHECK_THAT(error_of([] { scan_token_lengths("/nonexistent/lengths.csv"); }),
             Contains("/nonexistent/lengths.csv: token table file not found"));
}
