#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/traffic/traffic.hpp"

using namespace fleetsim;
using Catch::Matchers::Contains;

namespace {

RngStream stream(std::uint64_t seed = 42) { return RngStream(seed, "traffic-test"); }

// Every request of a source before `end`.
std::vector<Request> until(TrafficSource& source, SimTime end) {
  std::vector<Request> out;
  while (auto r = source.next()) {
    if (r->arrival >= end) break;
    out.push_back(*r);
  }
  return out;
}

std::int64_t count_in(const std::vector<Request>& requests, SimTime from, SimTime to) {
  std::int64_t n = 0;
  for (const Request& r : requests) n += r.arrival >= from && r.arrival < to;
  return n;
}

std::vector<Request> in(const std::vector<Request>& requests, SimTime from, SimTime to) {
  std::vector<Request> out;
  for (const Request& r : requests)
    if (r.arrival >= from && r.arrival < to) out.push_back(r);
  return out;
}

bool within_sigmas(double observed, double expected, double k = 5) {
  return std::abs(observed - expected) <= k * std::sqrt(expected);
}

}  // namespace

TEST_CASE("the surge multiplier ramps up, holds and ramps down linearly", "[traffic]") {
  SurgeSource surge(SurgeConfig{.base = PoissonConfig{.rps = 1},
                                .factor = 3,
                                .start = seconds(600),
                                .ramp_up = seconds(300),
                                .duration = seconds(1200),
                                .ramp_down = seconds(600)},
                    stream());
  CHECK(surge.copies() == 3);
  CHECK(surge.factor_at(at(seconds(0))) == 1);
  CHECK(surge.factor_at(at(seconds(599))) == 1);
  CHECK(surge.factor_at(at(seconds(600))) == 1);
  CHECK(surge.factor_at(at(seconds(750))) == Approx(2));
  CHECK(surge.factor_at(at(seconds(900))) == 3);
  CHECK(surge.factor_at(at(seconds(2099))) == 3);
  CHECK(surge.factor_at(at(seconds(2100))) == 3);
  CHECK(surge.factor_at(at(seconds(2400))) == Approx(2));
  CHECK(surge.factor_at(at(seconds(2700))) == 1);
  CHECK(surge.factor_at(at(seconds(9000))) == 1);
}

TEST_CASE("a surge multiplies a Poisson rate, ramps included", "[traffic]") {
  constexpr double kRps = 100;
  const SurgeConfig config{.base = PoissonConfig{.rps = kRps},
                           .factor = 3,
                           .start = seconds(600),
                           .ramp_up = seconds(300),
                           .duration = seconds(1200),
                           .ramp_down = seconds(600)};
  SurgeSource surge(config, stream());
  const auto requests = until(surge, at(seconds(3600)));
  for (std::size_t i = 1; i < requests.size(); ++i) {
    REQUIRE(requests[i - 1].arrival <= requests[i].arrival);
  }
  const auto count = [&](int from_s, int to_s) {
    return static_cast<double>(count_in(requests, at(seconds(from_s)), at(seconds(to_s))));
  };
  // Expected counts are ∫ f(t)·λ dt over each stretch; Poisson counts, checked within 5σ.
  CHECK(within_sigmas(count(600, 750), kRps * 150 * 1.5));  // f rises 1 → 2
  CHECK(within_sigmas(count(750, 900), kRps * 150 * 2.5));  // f rises 2 → 3
  CHECK(within_sigmas(count(900, 2100), kRps * 1200 * 3));  // f = 3
  CHECK(within_sigmas(count(2100, 2700), kRps * 600 * 2));  // f falls 3 → 1
  CHECK(within_sigmas(count(2700, 3600), kRps * 900));      // f = 1

  // Outside the surge, and inside it for the base's own share, the base is untouched: the same
  // seed gives exactly the base's requests.
  PoissonSource base(PoissonConfig{.rps = kRps}, stream());
  const auto alone = until(base, at(seconds(3600)));
  CHECK(in(requests, at(seconds(0)), at(seconds(600))) ==
        in(alone, at(seconds(0)), at(seconds(600))));
  CHECK(in(requests, at(seconds(2700)), at(seconds(3600))) ==
        in(alone, at(seconds(2700)), at(seconds(3600))));
  std::size_t found = 0;
  std::size_t k = 0;
  for (const Request& r : alone) {
    while (k < requests.size() && requests[k].arrival < r.arrival) ++k;
    for (std::size_t m = k; m < requests.size() && requests[m].arrival == r.arrival; ++m) {
      if (requests[m] == r) {
        ++found;
        break;
      }
    }
  }
  CHECK(found == alone.size());
}

TEST_CASE("a surge over constant traffic at an integer factor is a denser lattice", "[traffic]") {
  SurgeSource surge(SurgeConfig{.base = ConstantConfig{.rps = 4},
                                .factor = 2,
                                .start = seconds(10),
                                .duration = seconds(10)},
                    stream());
  const auto requests = until(surge, at(seconds(30)));
  std::vector<std::int64_t> expected;
  for (std::int64_t t = 0; t < 10'000'000; t += 250'000) expected.push_back(t);
  for (std::int64_t t = 10'000'000; t < 20'000'000; t += 125'000) expected.push_back(t);
  for (std::int64_t t = 20'000'000; t < 30'000'000; t += 250'000) expected.push_back(t);
  std::vector<std::int64_t> actual;
  for (const Request& r : requests) actual.push_back(r.arrival.time_since_epoch().count());
  CHECK(actual == expected);
}

TEST_CASE("a surge factor below 1 is a dip", "[traffic]") {
  SurgeSource surge(SurgeConfig{.base = PoissonConfig{.rps = 200},
                                .factor = 0.25,
                                .start = seconds(100),
                                .duration = seconds(600)},
                    stream());
  CHECK(surge.copies() == 1);
  const auto requests = until(surge, at(seconds(800)));
  CHECK(within_sigmas(static_cast<double>(count_in(requests, at(seconds(100)), at(seconds(700)))),
                      200 * 600 * 0.25));
  CHECK(within_sigmas(static_cast<double>(count_in(requests, at(seconds(0)), at(seconds(100)))),
                      200 * 100));
}

TEST_CASE("a surge with factor 1 is its base", "[traffic]") {
  const DiurnalConfig base{.mean_rps = 20, .peak_to_trough = 2};
  SurgeSource surge(SurgeConfig{.base = base,
                                .factor = 1,
                                .start = seconds(5),
                                .ramp_up = seconds(5),
                                .duration = seconds(50)},
                    stream());
  DiurnalSource alone(base, stream());
  for (int i = 0; i < 5000; ++i) REQUIRE(surge.next() == alone.next());
}

TEST_CASE("a surge over MMPP traffic multiplies its rate", "[traffic]") {
  const MmppConfig base{
      .quiet_rps = 50, .burst_rps = 200, .mean_quiet = millis(200), .mean_burst = millis(200)};
  SurgeSource surge(
      SurgeConfig{.base = base, .factor = 2, .start = seconds(1000), .duration = seconds(2000)},
      stream());
  const auto requests = until(surge, at(seconds(3000)));
  // 125 rps long-run. The modulation widens the count's spread (ten times a Poisson count's
  // variance here), so the bounds are over 5σ of that rather than of a Poisson count.
  const double before = static_cast<double>(count_in(requests, at(seconds(0)), at(seconds(1000))));
  const double during =
      static_cast<double>(count_in(requests, at(seconds(1000)), at(seconds(3000))));
  CHECK(std::abs(before / (125.0 * 1000) - 1) < 0.05);
  CHECK(std::abs(during / (2 * 125.0 * 2000) - 1) < 0.03);
}

TEST_CASE("bad surge configs are ConfigErrors at their location", "[traffic]") {
  const SourceLocation where{"scenario.yaml", 30, 9};
  const auto error = [](const SurgeConfig& c) -> std::string {
    try {
      SurgeSource(c, stream());
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(error({.base = PoissonConfig{.rps = 1}, .factor = -2, .where = where}),
             Contains("scenario.yaml:30:9: factor: must be between 0 and 100, got -2"));
  CHECK_THAT(error({.base = PoissonConfig{.rps = 1}, .factor = 101, .where = where}),
             Contains("scenario.yaml:30:9: factor: must be between 0 and 100, got 101"));
  CHECK_THAT(
      error({.base = PoissonConfig{.rps = 1}, .factor = 2, .start = seconds(-5), .where = where}),
      Contains("scenario.yaml:30:9: start: must not be negative, got -5s"));
  CHECK_THAT(
      error(
          {.base = PoissonConfig{.rps = 1}, .factor = 2, .ramp_down = minutes(-1), .where = where}),
      Contains("scenario.yaml:30:9: ramp_down: must not be negative, got -1m0s"));
  // The base's own errors carry the base's location.
  CHECK_THAT(error({.base = PoissonConfig{.rps = -1, .where = {"scenario.yaml", 31, 11}},
                    .factor = 2,
                    .where = where}),
             Contains("scenario.yaml:31:11: rps: must not be negative, got -1"));
}
