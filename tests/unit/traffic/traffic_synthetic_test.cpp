#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/traffic/traffic.hpp"

using namespace fleetsim;
using Catch::Matchers::Contains;

namespace {

RngStream stream(std::uint64_t seed = 42) { return RngStream(seed, "traffic-test"); }

// The first n requests of a source.
std::vector<Request> take(TrafficSource& source, std::size_t n) {
  std::vector<Request> out;
  out.reserve(n);
  while (out.size() < n) {
    auto r = source.next();
    if (!r) break;
    out.push_back(*r);
  }
  return out;
}

std::vector<Request> take(const TrafficConfig& config, std::size_t n, std::uint64_t seed = 42) {
  auto source = make_traffic_source(config, stream(seed));
  return take(*source, n);
}

std::int64_t us(const Request& r) { return r.arrival.time_since_epoch().count(); }

// A Poisson count is within k standard deviations (√expected) of its expectation.
bool within_sigmas(double observed, double expected, double k = 5) {
  return std::abs(observed - expected) <= k * std::sqrt(expected);
}

// Each hour of the day's count over `days` days against the integral of the diurnal λ over that
// hour, within 5σ (about ±1.5% at the tests' rates).
void check_hours_against_integral(const std::vector<double>& per_hour, int days, double mean,
                                  double a, double peak_hour) {
  const double w = 2 * std::numbers::pi / 24;
  for (int h = 0; h < 24; ++h) {
    const double integral =
        mean * 3600 *
        (1 + a * (std::sin(w * (h + 1 - peak_hour)) - std::sin(w * (h - peak_hour))) / w);
    INFO("hour " << h);
    CHECK(within_sigmas(per_hour[static_cast<std::size_t>(h)], days * integral));
  }
}

// The message a config error carries, or "" if the config is accepted.
std::string config_error(const TrafficConfig& config) {
  try {
    make_traffic_source(config, stream());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const SourceLocation kWhere{"scenario.yaml", 12, 5};

}  // namespace

// ---- constant -----------------------------------------------------------------------------------

TEST_CASE("constant traffic is spaced exactly", "[traffic]") {
  const auto requests = take(ConstantConfig{.rps = 4}, 9);
  REQUIRE(requests.size() == 9);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    CHECK(requests[i].arrival == at(micros(250'000 * static_cast<std::int64_t>(i))));
    CHECK(requests[i].input_tokens == kDefaultInputTokens);
    CHECK(requests[i].output_tokens == kDefaultOutputTokens);
  }
}

TEST_CASE("constant traffic rounds each arrival, so no error accumulates", "[traffic]") {
  ConstantSource source(ConstantConfig{.rps = 3, .first_arrival = seconds(5)}, stream());
  CHECK(us(*source.next()) == 5'000'000);
  CHECK(us(*source.next()) == 5'333'333);
  CHECK(us(*source.next()) == 5'666'667);
  CHECK(us(*source.next()) == 6'000'000);
  for (int i = 4; i < 3'000'000; ++i) source.next();
  CHECK(us(*source.next()) == 5'000'000 + 1'000'000'000'000);  // a million seconds later
}

TEST_CASE("constant traffic jumps ahead exactly", "[traffic]") {
  ConstantSource source(ConstantConfig{.rps = 4}, stream());
  source.fast_forward(at(millis(600)));
  CHECK(source.next()->arrival == at(millis(750)));
  source.fast_forward(at(millis(1000)));
  CHECK(source.next()->arrival == at(millis(1000)));
  source.fast_forward(at(millis(100)));  // backwards: no effect
  CHECK(source.next()->arrival == at(millis(1250)));
}

TEST_CASE("a zero rate yields no requests", "[traffic]") {
  CHECK(take(ConstantConfig{.rps = 0}, 5).empty());
  CHECK(take(PoissonConfig{.rps = 0}, 5).empty());
  CHECK(take(DiurnalConfig{.mean_rps = 0, .peak_to_trough = 3}, 5).empty());
  CHECK(take(MmppConfig{.mean_quiet = seconds(1), .mean_burst = seconds(1)}, 5).empty());
}

// ---- Poisson ------------------------------------------------------------------------------------

TEST_CASE("Poisson traffic has its mean rate and exponential gaps", "[traffic]") {
  constexpr double kRps = 50;
  constexpr std::size_t kN = 1'000'000;
  const auto requests = take(PoissonConfig{.rps = kRps}, kN);
  REQUIRE(requests.size() == kN);
  // The rate from n arrivals has a relative standard deviation of 1/√n = 0.1%.
  const double rate = static_cast<double>(kN) / to_seconds(requests.back().arrival);
  CHECK(std::abs(rate / kRps - 1) < 0.005);

  double sum = 0, sum_sq = 0;
  for (std::size_t i = 1; i < kN; ++i) {
    const auto gap = static_cast<double>(us(requests[i]) - us(requests[i - 1]));
    sum += gap;
    sum_sq += gap * gap;
  }
  const double n = kN - 1;
  const double mean = sum / n;
  const double cv = std::sqrt(sum_sq / n - mean * mean) / mean;
  CHECK(std::abs(cv - 1) < 0.01);  // an exponential's coefficient of variation is 1
  for (std::size_t i = 1; i < kN; ++i) REQUIRE(requests[i - 1].arrival <= requests[i].arrival);
}

// ---- diurnal ------------------------------------------------------------------------------------

TEST_CASE("diurnal traffic peaks at its UTC hour whatever hour the run starts (issue 12, 2)",
          "[traffic]") {
  // A run starting at 06:00 UTC peaks at 14:00 UTC, 8 h in, and is at its trough 12 h later.
  DiurnalSource source(
      DiurnalConfig{.mean_rps = 2, .peak_to_trough = 3, .peak_hour = 14, .start_hour = 6},
      stream());
  CHECK(source.rate_at(at(hours(8))) == Approx(3));
  CHECK(source.rate_at(at(hours(20))) == Approx(1));
  // Starting after the peak hour, the next peak is the next day's.
  DiurnalSource late(
      DiurnalConfig{.mean_rps = 2, .peak_to_trough = 3, .peak_hour = 2, .start_hour = 22.5},
      stream());
  CHECK(late.rate_at(at(minutes(210))) == Approx(3));
}

TEST_CASE("diurnal traffic follows its sinusoid hour by hour", "[traffic]") {
  constexpr double kMean = 2;
  constexpr double kRatio = 3;
  constexpr double kPeakHour = 14.5;  // the bucket [14 h, 15 h) is centred on the peak
  constexpr int kDays = 10;
  DiurnalSource source(
      DiurnalConfig{.mean_rps = kMean, .peak_to_trough = kRatio, .peak_hour = kPeakHour}, stream());
  const double a = (kRatio - 1) / (kRatio + 1);
  CHECK(source.amplitude() == Approx(a));
  CHECK(source.rate_at(at(seconds(52'200))) == Approx(kMean * (1 + a)));  // 14:30
  CHECK(source.rate_at(at(seconds(9'000))) == Approx(kMean * (1 - a)));   // 02:30

  std::vector<double> per_hour(24, 0);
  double total = 0;
  const SimTime end = at(hours(24 * kDays));
  while (true) {
    const auto r = source.next();
    REQUIRE(r);
    if (r->arrival >= end) break;
    per_hour[static_cast<std::size_t>(to_hours(r->arrival.time_since_epoch())) % 24] += 1;
    total += 1;
  }
  CHECK(std::abs(total / (kDays * 86400.0) / kMean - 1) < 0.005);

  check_hours_against_integral(per_hour, kDays, kMean, a, kPeakHour);
  // The peak hour runs at about the peak rate, the trough hour at about peak / ratio.
  const double peak_rate = per_hour[14] / (kDays * 3600.0);
  const double trough_rate = per_hour[2] / (kDays * 3600.0);
  CHECK(std::abs(peak_rate / (kMean * (1 + a)) - 1) < 0.02);
  CHECK(std::abs(trough_rate / (kMean * (1 + a) / kRatio) - 1) < 0.03);
}

TEST_CASE("diurnal traffic with ratio 1 is plain Poisson", "[traffic]") {
  CHECK(take(DiurnalConfig{.mean_rps = 5, .peak_to_trough = 1}, 1000) ==
        take(PoissonConfig{.rps = 5}, 1000));
}

// ---- MMPP ---------------------------------------------------------------------------------------

TEST_CASE("MMPP long-run rate is the time-weighted average of its state rates", "[traffic]") {
  const MmppConfig config{
      .quiet_rps = 1, .burst_rps = 10, .mean_quiet = seconds(10), .mean_burst = seconds(5)};
  MmppSource source(config, stream());
  const double expected = (1 * 10.0 + 10 * 5.0) / 15.0;  // 4 requests per second
  CHECK(source.long_run_rps() == Approx(expected));

  constexpr double kSeconds = 500'000;
  constexpr double kWindow = 60;
  std::vector<double> windows(static_cast<std::size_t>(kSeconds / kWindow), 0);
  double count = 0;
  while (true) {
    const auto r = source.next();
    REQUIRE(r);
    const double t = to_seconds(r->arrival);
    if (t >= kSeconds) break;
    count += 1;
    const auto w = static_cast<std::size_t>(t / kWindow);
    if (w < windows.size()) windows[w] += 1;
  }
  // Modulation inflates the count's variance about 31-fold over Poisson's (index of dispersion
  // 1 + 2αβ(λq − λb)² / ((α + β)³ · mean)); 2.5% is over 5σ of that.
  CHECK(std::abs(count / kSeconds / expected - 1) < 0.025);

  // Bursty: counts per minute vary far more than a Poisson stream's (whose ratio is 1).
  double sum = 0, sum_sq = 0;
  for (double c : windows) {
    sum += c;
    sum_sq += c * c;
  }
  const double n = static_cast<double>(windows.size());
  const double mean = sum / n;
  const double dispersion = (sum_sq / n - mean * mean) / mean;
  CHECK(dispersion > 5);
}

TEST_CASE("on/off MMPP traffic arrives only in bursts", "[traffic]") {
  MmppSource source(MmppConfig{.quiet_rps = 0,
                               .burst_rps = 20,
                               .mean_quiet = seconds(30),
                               .mean_burst = seconds(3),
                               .start = MmppStart::Quiet},
                    stream());
  CHECK(source.state() == MmppState::Quiet);
  for (int i = 0; i < 10'000; ++i) {
    REQUIRE(source.next());
    REQUIRE(source.state() == MmppState::Burst);
  }
}

TEST_CASE("MMPP jumps ahead by the chain's transition probabilities", "[traffic]") {
  // From quiet at 0, P(burst at t) = π_b·(1 − e^(−(1/10 s + 1/5 s)·t)), π_b = 5 / 15.
  const MmppConfig config{.quiet_rps = 1,
                          .burst_rps = 10,
                          .mean_quiet = seconds(10),
                          .mean_burst = seconds(5),
                          .start = MmppStart::Quiet};
  constexpr int kTrials = 20'000;
  for (const double t : {3.0, 1000.0}) {
    INFO("t = " << t << " s");
    int bursting = 0;
    for (int i = 0; i < kTrials; ++i) {
      MmppSource source(config, stream(static_cast<std::uint64_t>(i)));
      source.fast_forward(at(from_seconds(t)));
      bursting += source.state() == MmppState::Burst;
      REQUIRE(source.next()->arrival >= at(from_seconds(t)));
    }
    const double expected = (1.0 / 3) * (1 - std::exp(-0.3 * t));
    CHECK(std::abs(static_cast<double>(bursting) / kTrials - expected) < 0.015);
  }
}

// ---- tokens -------------------------------------------------------------------------------------

TEST_CASE("token counts are fixed or log-normal", "[traffic]") {
  const auto fixed = take(PoissonConfig{.rps = 10,
                                        .tokens = {.input = TokenDistribution::fixed(700),
                                                   .output = TokenDistribution::fixed(0)}},
                          100);
  for (const Request& r : fixed) {
    CHECK(r.input_tokens == 700);
    CHECK(r.output_tokens == 0);
  }

  const auto drawn = take(PoissonConfig{.rps = 10,
                                        .tokens = {.input = TokenDistribution::lognormal(500, 0.8),
                                                   .output = TokenDistribution::fixed(50)}},
                          100'001);
  std::vector<std::uint32_t> inputs;
  for (const Request& r : drawn) inputs.push_back(r.input_tokens);
  std::nth_element(inputs.begin(), inputs.begin() + 50'000, inputs.end());
  CHECK(std::abs(inputs[50'000] / 500.0 - 1) < 0.02);
  double log_sum = 0, log_sq = 0;
  for (std::uint32_t v : inputs) {
    log_sum += std::log(v);
    log_sq += std::log(v) * std::log(v);
  }
  const double n = static_cast<double>(inputs.size());
  CHECK(std::sqrt(log_sq / n - (log_sum / n) * (log_sum / n)) == Approx(0.8).epsilon(0.02));
}

TEST_CASE("log-normal token draws are clamped to [1, kMaxTokens]", "[traffic]") {
  const auto drawn = take(PoissonConfig{.rps = 10,
                                        .tokens = {.input = TokenDistribution::lognormal(1, 30),
                                                   .output = TokenDistribution::lognormal(1, 30)}},
                          10'000);
  bool saw_min = false, saw_max = false;
  for (const Request& r : drawn) {
    REQUIRE(r.input_tokens >= 1);
    REQUIRE(r.input_tokens <= kMaxTokens);
    saw_min = saw_min || r.input_tokens == 1;
    saw_max = saw_max || r.input_tokens == kMaxTokens;
  }
  CHECK(saw_min);
  CHECK(saw_max);
}

TEST_CASE("token draws do not disturb arrival times", "[traffic]") {
  const auto plain = take(DiurnalConfig{.mean_rps = 3, .peak_to_trough = 4}, 2000);
  const auto drawn =
      take(DiurnalConfig{.mean_rps = 3,
                         .peak_to_trough = 4,
                         .tokens = {.input = TokenDistribution::lognormal(800, 1),
                                    .output = TokenDistribution::lognormal(100, 0.5)}},
           2000);
  REQUIRE(plain.size() == drawn.size());
  for (std::size_t i = 0; i < plain.size(); ++i) REQUIRE(plain[i].arrival == drawn[i].arrival);
}

// ---- determinism --------------------------------------------------------------------------------

TEST_CASE("every pattern is deterministic in its seed", "[traffic]") {
  const TokenConfig tokens{.input = TokenDistribution::lognormal(800, 1),
                           .output = TokenDistribution::lognormal(100, 0.5)};
  const std::vector<TrafficConfig> configs = {
      ConstantConfig{.rps = 7, .tokens = tokens},
      PoissonConfig{.rps = 7, .tokens = tokens},
      DiurnalConfig{.mean_rps = 7, .peak_to_trough = 3, .tokens = tokens},
      MmppConfig{.quiet_rps = 2,
                 .burst_rps = 20,
                 .mean_quiet = seconds(20),
                 .mean_burst = seconds(5),
                 .tokens = tokens},
      SurgeConfig{.base = PoissonConfig{.rps = 7, .tokens = tokens},
                  .factor = 2.5,
                  .start = seconds(60),
                  .ramp_up = seconds(30),
                  .duration = seconds(60),
                  .ramp_down = seconds(30)},
  };
  for (std::size_t i = 0; i < configs.size(); ++i) {
    INFO("config " << i);
    const auto a = take(configs[i], 5000, 7);
    const auto b = take(configs[i], 5000, 7);
    const auto c = take(configs[i], 5000, 8);
    REQUIRE(a.size() == 5000);
    CHECK(a == b);
    CHECK(a != c);
  }
}

// ---- configuration errors -----------------------------------------------------------------------

TEST_CASE("bad synthetic configs are ConfigErrors at their location", "[traffic]") {
  CHECK_THAT(config_error(PoissonConfig{.rps = -1, .where = kWhere}),
             Contains("scenario.yaml:12:5: rps: must not be negative, got -1"));
  CHECK_THAT(config_error(PoissonConfig{.rps = NAN, .where = kWhere}),
             Contains("scenario.yaml:12:5: rps: must be a finite number, got nan"));
  CHECK_THAT(config_error(ConstantConfig{.rps = 2e6, .where = kWhere}),
             Contains("scenario.yaml:12:5: rps: must be at most 1000000 requests per second"));
  CHECK_THAT(config_error(ConstantConfig{.rps = 1, .first_arrival = seconds(-1), .where = kWhere}),
             Contains("scenario.yaml:12:5: first_arrival: must not be negative, got -1s"));
  CHECK_THAT(config_error(DiurnalConfig{.mean_rps = -3, .peak_to_trough = 2, .where = kWhere}),
             Contains("scenario.yaml:12:5: mean_rps: must not be negative, got -3"));
  CHECK_THAT(config_error(DiurnalConfig{.mean_rps = 3, .peak_to_trough = 0.5, .where = kWhere}),
             Contains("scenario.yaml:12:5: peak_to_trough: must be at least 1"));
  CHECK_THAT(
      config_error(DiurnalConfig{.mean_rps = 3, .peak_to_trough = INFINITY, .where = kWhere}),
      Contains("scenario.yaml:12:5: peak_to_trough: must be a finite number"));
  CHECK_THAT(config_error(DiurnalConfig{
                 .mean_rps = 3, .peak_to_trough = 2, .peak_hour = 24, .where = kWhere}),
             Contains("scenario.yaml:12:5: peak_hour: must be in [0, 24), got 24"));
  CHECK_THAT(config_error(MmppConfig{.quiet_rps = 1,
                                     .burst_rps = -5,
                                     .mean_quiet = seconds(1),
                                     .mean_burst = seconds(1),
                                     .where = kWhere}),
             Contains("scenario.yaml:12:5: burst_rps: must not be negative, got -5"));
  CHECK_THAT(config_error(MmppConfig{
                 .quiet_rps = 1, .burst_rps = 5, .mean_quiet = seconds(1), .where = kWhere}),
             Contains("scenario.yaml:12:5: mean_burst: must be at least 1ms, got 0s"));
  CHECK_THAT(config_error(MmppConfig{.quiet_rps = 0,
                                     .burst_rps = 1e-9,
                                     .mean_quiet = millis(1),
                                     .mean_burst = millis(1),
                                     .where = kWhere}),
             Contains("scenario.yaml:12:5: quiet_rps: with burst_rps 1e-09 and these sojourns"));
  CHECK_THAT(config_error(PoissonConfig{
                 .rps = 1, .tokens = {.input = TokenDistribution::fixed(-2)}, .where = kWhere}),
             Contains("scenario.yaml:12:5: tokens.input.median: must not be negative, got -2"));
  CHECK_THAT(config_error(PoissonConfig{
                 .rps = 1, .tokens = {.output = TokenDistribution::fixed(2.5)}, .where = kWhere}),
             Contains("tokens.output.median: a fixed count must be a whole number, got 2.5"));
  CHECK_THAT(config_error(PoissonConfig{
                 .rps = 1, .tokens = {.input = TokenDistribution::fixed(2e6)}, .where = kWhere}),
             Contains("tokens.input.median: must be at most 1048576 tokens"));
  CHECK_THAT(
      config_error(PoissonConfig{
          .rps = 1, .tokens = {.input = TokenDistribution::lognormal(0, 1)}, .where = kWhere}),
      Contains("tokens.input.median: a log-normal median must be at least 1 token"));
  CHECK_THAT(
      config_error(PoissonConfig{
          .rps = 1, .tokens = {.output = TokenDistribution::lognormal(9, -1)}, .where = kWhere}),
      Contains("scenario.yaml:12:5: tokens.output.sigma: must not be negative, got -1"));
  // The limits themselves pass.
  CHECK(config_error(PoissonConfig{.rps = kMaxTrafficRps}).empty());
  CHECK(config_error(DiurnalConfig{.mean_rps = 1, .peak_to_trough = 1, .peak_hour = 0}).empty());
  CHECK(config_error(
            PoissonConfig{.rps = 1, .tokens = {.input = TokenDistribution::fixed(kMaxTokens)}})
            .empty());
}

// ---- counts for the fluid mode ------------------------------------------------------------------

TEST_CASE("a lattice counts its arrivals exactly as next would yield them", "[traffic]") {
  ConstantSource counted(ConstantConfig{.rps = 4}, stream());
  CHECK(counted.count_until(at(millis(600))) == 3u);  // 0, 250, 500 ms
  CHECK(counted.count_until(at(millis(600))) == 0u);
  CHECK(counted.count_until(at(millis(1000))) == 1u);  // 750 ms; 1000 ms is not before
  CHECK(counted.next()->arrival == at(millis(1000)));
}

TEST_CASE("surge traffic leaves counting to the caller", "[traffic]") {
  SurgeSource surge(SurgeConfig{.base = PoissonConfig{.rps = 2}, .factor = 2}, stream());
  CHECK_FALSE(surge.count_until(at(seconds(10))).has_value());
}

// Diurnal counts in 5-second pieces over 10 days, hour by hour, against ∫λ (as the stepped
// arrivals are checked above), and next() goes on from where the counts stop.
TEST_CASE("diurnal traffic draws its counts per piece from the integral of its rate", "[traffic]") {
  constexpr double kMean = 2;
  constexpr double kPeakHour = 14.5;
  constexpr int kDays = 10;
  DiurnalSource source(
      DiurnalConfig{.mean_rps = kMean, .peak_to_trough = 3, .peak_hour = kPeakHour}, stream());
  const double a = source.amplitude();
  std::vector<double> per_hour(24, 0);
  for (int piece = 1; piece <= kDays * 86400 / 5; ++piece) {
    const SimTime end = at(seconds(5 * piece));
    const auto n = source.count_until(end);
    REQUIRE(n.has_value());
    per_hour[static_cast<std::size_t>(to_hours((end - seconds(5)).time_since_epoch())) % 24] +=
        static_cast<double>(*n);
  }
  check_hours_against_integral(per_hour, kDays, kMean, a, kPeakHour);
  const auto after = source.next();
  REQUIRE(after);
  CHECK(after->arrival >= at(hours(24 * kDays)));
}

// The fluid mode reads a measured engine at the rate a count was drawn at, not at the count.
TEST_CASE("a Poisson or diurnal source tells the mean of the count it draws", "[traffic]") {
  PoissonSource poisson(PoissonConfig{.rps = 40}, stream());
  CHECK(poisson.expected_until(at(seconds(5))) == Approx(200));
  REQUIRE(poisson.count_until(at(seconds(5))).has_value());
  CHECK(poisson.expected_until(at(seconds(5))) == 0.0);
  CHECK(poisson.expected_until(at(millis(7500))) == Approx(100));

  // Over the day's first six hours, ∫λ of a sinusoid peaking at 6 h: mean × (6 h + a × day ÷ 2π).
  DiurnalSource diurnal(DiurnalConfig{.mean_rps = 2, .peak_to_trough = 3, .peak_hour = 6},
                        stream());
  const double a = diurnal.amplitude();
  CHECK(diurnal.expected_until(at(hours(6))) ==
        Approx(2 * (6 * 3600 + a * 86400 / (2 * std::numbers::pi))));
  // Telling draws nothing: the counts are those of a source never asked.
  DiurnalSource asked(DiurnalConfig{.mean_rps = 2, .peak_to_trough = 3, .peak_hour = 6}, stream());
  DiurnalSource unasked(DiurnalConfig{.mean_rps = 2, .peak_to_trough = 3, .peak_hour = 6},
                        stream());
  for (int s = 1; s <= 100; ++s) {
    static_cast<void>(asked.expected_until(at(seconds(60 * s))));
    CHECK(asked.count_until(at(seconds(60 * s))) == unasked.count_until(at(seconds(60 * s))));
  }

  MmppSource mmpp(
      MmppConfig{
          .quiet_rps = 1, .burst_rps = 10, .mean_quiet = seconds(10), .mean_burst = seconds(5)},
      stream());
  CHECK_FALSE(mmpp.expected_until(at(seconds(5))).has_value());
}

TEST_CASE("Poisson counts have their rate and MMPP leaves counting to the caller", "[traffic]") {
  PoissonSource poisson(PoissonConfig{.rps = 40}, stream());
  double total = 0;
  for (int s = 1; s <= 10'000; ++s)
    total += static_cast<double>(*poisson.count_until(at(seconds(s))));
  CHECK(within_sigmas(total, 400'000));
  CHECK(poisson.next()->arrival >= at(seconds(10'000)));

  MmppSource mmpp(
      MmppConfig{
          .quiet_rps = 1, .burst_rps = 10, .mean_quiet = seconds(10), .mean_burst = seconds(5)},
      stream());
  CHECK_FALSE(mmpp.count_until(at(seconds(5))).has_value());
}
