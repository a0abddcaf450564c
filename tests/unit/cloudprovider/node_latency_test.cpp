#include "fleetsim/cloudprovider/node_latency.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "fleetsim/cloudprovider/node_latency_fit.hpp"
#include "fleetsim/core/rng.hpp"

using namespace fleetsim;

namespace {

constexpr double kZ90 = 1.2815515655446004;  // the 90th percentile of a standard normal

SimDuration total(const NodeLatency& l) { return l.launch + l.registration + l.initialization; }

// The q-quantile of `xs` (sorted in place): the value at rank ceil(q n).
double quantile(std::vector<double>& xs, double q) {
  std::sort(xs.begin(), xs.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(xs.size())));
  return xs[std::max<std::size_t>(rank, 1) - 1];
}

}  // namespace

TEST_CASE("node start-up draw: every phase times one log-normal factor", "[cloudprovider]") {
  const NodeLatency median{.launch = seconds(5),
                           .registration = seconds(40),
                           .initialization = seconds(25),
                           .sigma = 0.5};
  // exp(0.5 × 1) = 1.6487…: 5 s, 40 s and 25 s to the nearest microsecond.
  CHECK(draw_node_latency(median, 1.0) == NodeLatency{.launch = micros(8'243'606),
                                                      .registration = micros(65'948'851),
                                                      .initialization = micros(41'218'032)});
  // exp(0.3 × -2) = 0.5488…
  NodeLatency narrow = median;
  narrow.sigma = 0.3;
  CHECK(draw_node_latency(narrow, -2.0) == NodeLatency{.launch = micros(2'744'058),
                                                       .registration = micros(21'952'465),
                                                       .initialization = micros(13'720'291)});
  // z = 0 is the median itself.
  CHECK(draw_node_latency(median, 0.0) == NodeLatency{.launch = seconds(5),
                                                      .registration = seconds(40),
                                                      .initialization = seconds(25)});
}

TEST_CASE("node start-up draw: a fixed phase or sigma 0 takes the value as given",
          "[cloudprovider]") {
  const NodeLatency fixed_registration{.launch = seconds(5),
                                       .registration = seconds(40),
                                       .initialization = seconds(25),
                                       .sigma = 0.5,
                                       .registration_fixed = true};
  for (double z : {-3.0, -0.7, 0.4, 2.5}) {
    const NodeLatency d = draw_node_latency(fixed_registration, z);
    CHECK(d.registration == seconds(40));
    CHECK(d.launch == from_seconds(5 * std::exp(0.5 * z)));
    CHECK(d.initialization == from_seconds(25 * std::exp(0.5 * z)));
  }
  const NodeLatency all_fixed{.launch = seconds(3),
                              .registration = seconds(30),
                              .initialization = seconds(6),
                              .sigma = 0.5,
                              .launch_fixed = true,
                              .registration_fixed = true,
                              .initialization_fixed = true};
  const NodeLatency no_spread{
      .launch = seconds(3), .registration = seconds(30), .initialization = seconds(6)};
  for (double z : {-3.0, 2.5}) {
    CHECK(draw_node_latency(all_fixed, z) == no_spread);
    CHECK(draw_node_latency(no_spread, z) == no_spread);
  }
}

TEST_CASE("node start-up draw: the same seed gives the same phases and another seed others",
          "[cloudprovider]") {
  const NodeLatency gpu{.launch = seconds(5),
                        .registration = seconds(40),
                        .initialization = seconds(25),
                        .sigma = kFittedGpuStartupSigma};
  auto draws = [&](std::uint64_t seed) {
    RngStream rng(seed, "node-startup");
    std::vector<NodeLatency> out;
    for (int i = 0; i < 50; ++i) out.push_back(draw_node_latency(gpu, rng.normal()));
    return out;
  };
  CHECK(draws(11) == draws(11));
  CHECK(draws(11) != draws(12));
}

TEST_CASE("fitted start-up sigmas: the published ranges read as their p10 to p90",
          "[cloudprovider]") {
  // CPU: 30-65 s launch to Ready (kube.fm, storytemplates.tech, akingscote.co.uk); GPU: a new
  // node adds 45-90 s (devfloor9). tools/startup/derive_startup_latency.py wrote them.
  CHECK(kFittedCpuStartupSigma == Approx(std::log(65.0 / 30.0) / (2 * kZ90)).margin(5e-5));
  CHECK(kFittedGpuStartupSigma == Approx(std::log(90.0 / 45.0) / (2 * kZ90)).margin(5e-5));
}

TEST_CASE("node start-up draw: the median and p10 and p90 of the total match the fit",
          "[cloudprovider]") {
  // Sample quantiles of n draws: the standard error of the q-quantile of z is
  // sqrt(q (1 - q) / n) / phi(z_q) (0.0089 at the median, 0.0121 at p10 and p90 for n = 20000);
  // the log of the total is sigma z, so 4 standard errors of it bound the check.
  constexpr int kDraws = 20'000;
  const double se_median = 0.0089;
  const double se_tail = 0.0121;
  struct Class {
    NodeLatency median;
    double total_s;
  };
  for (const Class& c : {Class{{.launch = seconds(5),
                        .registration = seconds(30),
                        .initialization = seconds(5),
                        .sigma = kFittedCpuStartupSigma},
                               40.0},
                         Class{{.launch = seconds(5),
                         .registration = seconds(40),
                         .initialization = seconds(25),
                         .sigma = kFittedGpuStartupSigma},
                               70.0}}) {
    RngStream rng(3, "node-startup");
    std::vector<double> totals;
    for (int i = 0; i < kDraws; ++i)
      totals.push_back(to_seconds(total(draw_node_latency(c.median, rng.normal()))));
    const double sigma = c.median.sigma;
    const double p50 = quantile(totals, 0.5);
    const double p10 = quantile(totals, 0.1);
    const double p90 = quantile(totals, 0.9);
    CHECK(std::abs(std::log(p50 / c.total_s)) < 4 * sigma * se_median);
    CHECK(std::abs(std::log(p10 / (c.total_s * std::exp(-sigma * kZ90)))) < 4 * sigma * se_tail);
    CHECK(std::abs(std::log(p90 / (c.total_s * std::exp(sigma * kZ90)))) < 4 * sigma * se_tail);
    // The spread is there: the published range's ends are near the p10 and p90.
    CHECK(p90 / p10 > 1.9);
  }
}
