#include "fleetsim/core/rng.hpp"

#include <algorithm>
#include <array>
#include <bit>
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

// The ziggurat's layer edges by Marsaglia & Tsang's recurrence, computed at run time as rng.cpp
// computed them before they became literals. `r` and `v` pass through volatile so that the
// compiler cannot fold the libm calls at compile time with another rounding.
template <typename Density, typename Inverse>
std::array<double, 257> ziggurat_edges(double r_in, double v_in, Density density, Inverse inverse) {
  const volatile double r = r_in;
  const volatile double v = v_in;
  std::array<double, 257> x{};
  x[0] = v / density(r);
  x[1] = r;
  for (int i = 2; i < 256; ++i) x[i] = inverse(v / x[i - 1] + density(x[i - 1]));
  x[256] = 0;
  return x;
}

double exponential_density(double t) { return std::exp(-t); }
double half_normal_density(double t) { return std::exp(-0.5 * t * t); }

std::array<double, 257> exponential_edges() {
  return ziggurat_edges(7.69711747013104972, 3.949659822581572e-3, exponential_density,
                        [](double y) { return -std::log(y); });
}

std::array<double, 257> half_normal_edges() {
  return ziggurat_edges(3.6541528853610088, 4.92867323399e-3, half_normal_density,
                        [](double y) { return std::sqrt(-2.0 * std::log(y)); });
}

double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// The draws as one loop each, as rng.cpp wrote them before their fast paths moved inline: the
// reference the inline and out-of-line halves must reproduce word for word. `words` supplies
// the 64-bit words.
double reference_exponential(RngStream& words) {
  static const std::array<double, 257> x_edge = exponential_edges();
  double shift = 0;
  while (true) {
    const std::uint64_t bits = words.next_u64();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double x = unit(bits) * x_edge[i];
    if (x < x_edge[i + 1]) return shift + x;
    if (i == 0) {
      shift += x_edge[1];
      continue;
    }
    const double f_i = exponential_density(x_edge[i]);
    const double f_next = exponential_density(x_edge[i + 1]);
    if (f_i + unit(words.next_u64()) * (f_next - f_i) < std::exp(-x)) return shift + x;
  }
}

double reference_normal(RngStream& words) {
  static const std::array<double, 257> x_edge = half_normal_edges();
  while (true) {
    const std::uint64_t bits = words.next_u64();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double sign = (bits & 0x100) != 0 ? -1.0 : 1.0;
    const double x = unit(bits) * x_edge[i];
    if (x < x_edge[i + 1]) return sign * x;
    if (i == 0) {
      const double r = x_edge[1];
      while (true) {
        const double a = -std::log1p(-unit(words.next_u64())) / r;
        const double b = -std::log1p(-unit(words.next_u64()));
        if (2 * b >= a * a) return sign * (r + a);
      }
    }
    const double f_i = half_normal_density(x_edge[i]);
    const double f_next = half_normal_density(x_edge[i + 1]);
    if (f_i + unit(words.next_u64()) * (f_next - f_i) < std::exp(-0.5 * x * x)) return sign * x;
  }
}

}  // namespace

// The literal tables of rng_tables.cpp are the recurrence's values, every bit.
TEST_CASE("ziggurat edge tables equal the recurrence computed at run time", "[core][rng]") {
  const std::array<double, 257> exponential = exponential_edges();
  const std::array<double, 257> half_normal = half_normal_edges();
  for (std::size_t i = 0; i < 257; ++i) {
    INFO("layer " << i);
    CHECK(std::bit_cast<std::uint64_t>(rng_detail::kExponentialEdges[i]) ==
          std::bit_cast<std::uint64_t>(exponential[i]));
    CHECK(std::bit_cast<std::uint64_t>(rng_detail::kHalfNormalEdges[i]) ==
          std::bit_cast<std::uint64_t>(half_normal[i]));
  }
}

// Enough draws that every layer's wedge, layer 0 and the tails are taken many times (about 1%
// of draws leave the fast path); the streams must also stay in step word for word.
TEST_CASE("inline ziggurat draws equal the reference loop bit for bit", "[core][rng]") {
  RngStream fast(21, "ziggurat");
  RngStream reference(21, "ziggurat");
  int exponential_mismatches = 0;
  int normal_mismatches = 0;
  for (int i = 0; i < kDraws; ++i) {
    exponential_mismatches += std::bit_cast<std::uint64_t>(fast.standard_exponential()) !=
                              std::bit_cast<std::uint64_t>(reference_exponential(reference));
    normal_mismatches += std::bit_cast<std::uint64_t>(fast.normal()) !=
                         std::bit_cast<std::uint64_t>(reference_normal(reference));
  }
  CHECK(exponential_mismatches == 0);
  CHECK(normal_mismatches == 0);
  CHECK(fast.next_u64() == reference.next_u64());
}

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
