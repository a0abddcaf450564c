#include "fleetsim/core/rng.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <vector>

using namespace fleetsim;

namespace {

constexpr int kDraws = 1'000'000;

// Kolmogorov-Smirnov distance between the sample and the exact CDF.
double ks_distance(std::vector<double> sample, const std::function<double(double)>& cdf) {
  std::sort(sample.begin(), sample.end());
  const double n = static_cast<double>(sample.size());
  double d = 0;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const double f = cdf(sample[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

// The 0.1% critical value of the KS distance for kDraws values: 1.95 / sqrt(n).
const double kKsCritical = 1.95 / std::sqrt(static_cast<double>(kDraws));

// Whether `count` is within five standard deviations of a binomial(kDraws, p) mean.
bool binomial_plausible(int count, double p) {
  const double mean = kDraws * p;
  return std::abs(count - mean) <= 5 * std::sqrt(mean * (1 - p));
}

}  // namespace

TEST_CASE("ziggurat exponential draws follow Exp(1), tail included", "[core][rng]") {
  RngStream rng(11, "exponential");
  std::vector<double> sample(kDraws);
  int beyond_base = 0;  // drawn through the ziggurat's tail (x > r = 7.697)
  double sum = 0;
  for (double& v : sample) {
    v = rng.standard_exponential();
    sum += v;
    beyond_base += v > 7.69711747013104972;
  }
  CHECK(ks_distance(sample, [](double x) { return -std::expm1(-x); }) < kKsCritical);
  CHECK(std::abs(sum / kDraws - 1) < 5 / std::sqrt(kDraws));
  CHECK(binomial_plausible(beyond_base, std::exp(-7.69711747013104972)));
  CHECK(*std::min_element(sample.begin(), sample.end()) >= 0);
}

TEST_CASE("ziggurat normal draws follow N(0, 1), both tails included", "[core][rng]") {
  RngStream rng(12, "normal");
  std::vector<double> sample(kDraws);
  int tails = 0;  // |z| > r = 3.654
  int negative = 0;
  double sum_sq = 0;
  for (double& v : sample) {
    v = rng.normal();
    sum_sq += v * v;
    tails += std::abs(v) > 3.6541528853610088;
    negative += v < 0;
  }
  CHECK(ks_distance(sample, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }) <
        kKsCritical);
  CHECK(std::abs(sum_sq / kDraws - 1) < 5 * std::sqrt(2.0 / kDraws));
  CHECK(binomial_plausible(tails, std::erfc(3.6541528853610088 / std::sqrt(2.0))));
  CHECK(binomial_plausible(negative, 0.5));
}

TEST_CASE("exponential and log-normal scale the standard draws", "[core][rng]") {
  RngStream a(5, "same");
  RngStream b(5, "same");
  for (int i = 0; i < 1000; ++i) CHECK(a.exponential(250.0) == 250.0 * b.standard_exponential());
  for (int i = 0; i < 1000; ++i) CHECK(a.lognormal(3.0, 0.5) == 3.0 * std::exp(0.5 * b.normal()));
}

// Each k's frequency against the exact probability, on both sides of the inversion/PTRS switch.
TEST_CASE("poisson draws follow the Poisson distribution at small and large means", "[core][rng]") {
  for (const double mean : {0.3, 4.0, 9.99, 10.0, 37.5, 400.0}) {
    RngStream rng(13, "poisson");
    std::vector<int> counts(static_cast<std::size_t>(mean * 4 + 40), 0);
    double sum = 0;
    for (int i = 0; i < kDraws; ++i) {
      const std::uint64_t k = rng.poisson(mean);
      sum += static_cast<double>(k);
      if (k < counts.size()) ++counts[k];
    }
    INFO("mean " << mean);
    CHECK(std::abs(sum / kDraws - mean) < 5 * std::sqrt(mean / kDraws));
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const double log_p =
          -mean + static_cast<double>(k) * std::log(mean) - std::lgamma(static_cast<double>(k) + 1);
      INFO("k " << k);
      CHECK(binomial_plausible(counts[k], std::exp(log_p)));
    }
  }
  RngStream rng(13, "poisson");
  CHECK(rng.poisson(0) == 0);
}
