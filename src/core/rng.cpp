#include "fleetsim/core/rng.hpp"

#include <array>
#include <cmath>

namespace fleetsim {

using rng_detail::kExponentialEdges;
using rng_detail::kHalfNormalEdges;
using rng_detail::unit;

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Marsaglia & Tsang's ziggurat ("The Ziggurat Method for Generating Random Variables", J. Stat.
// Software 5(8), 2000) with 256 layers of equal area v under a decreasing density f on [0, ∞).
// Layer i (0 < i < 256) spans heights f(x[i])..f(x[i+1]) and widths 0..x[i]; layer 0 is the
// base rectangle below f(r) plus the tail beyond r, drawn as a rectangle of width v / f(r).
// About 99% of draws cost one 64-bit word, a multiply and a comparison: no log, no cos. The
// edges x are in rng_tables.cpp; the heights f(x[i]), which only the wedge test reads, are
// computed here on first use.
template <typename Density>
std::array<double, 257> heights(const std::array<double, 257>& x, Density density) {
  std::array<double, 257> f{};
  for (int i = 0; i < 257; ++i) f[i] = density(x[i]);
  return f;
}

const std::array<double, 257>& exponential_heights() {
  static const std::array<double, 257> f =
      heights(kExponentialEdges, [](double t) { return std::exp(-t); });
  return f;
}

const std::array<double, 257>& half_normal_heights() {
  static const std::array<double, 257> f =
      heights(kHalfNormalEdges, [](double t) { return std::exp(-0.5 * t * t); });
  return f;
}

}  // namespace

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

RngStream::RngStream(std::uint64_t seed, std::string_view component) {
  std::uint64_t x = seed ^ stable_hash(component);
  for (auto& s : s_) s = splitmix64(x);
}

std::uint64_t RngStream::below(std::uint64_t n) {
  // Lemire's multiply-shift with rejection: unbiased.
  while (true) {
    __uint128_t m = static_cast<__uint128_t>(next_u64()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low >= n || low >= (-n) % n) return static_cast<std::uint64_t>(m >> 64);
  }
}

// The ziggurat's loop from a first word that missed its layer's rectangle (the inline part's
// test, which is repeated here for the words after it).
double RngStream::standard_exponential_rest(std::uint64_t bits) {
  const std::array<double, 257>& x_edge = kExponentialEdges;
  const std::array<double, 257>& f = exponential_heights();
  double shift = 0;  // the tail beyond r is r + Exp(1), the exponential being memoryless
  while (true) {
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double x = unit(bits) * x_edge[i];
    if (x < x_edge[i + 1]) return shift + x;
    if (i == 0) {
      shift += x_edge[1];
    } else if (f[i] + uniform() * (f[i + 1] - f[i]) < std::exp(-x)) {
      return shift + x;
    }
    bits = next_u64();
  }
}

double RngStream::normal_rest(std::uint64_t bits) {
  const std::array<double, 257>& x_edge = kHalfNormalEdges;
  const std::array<double, 257>& f = half_normal_heights();
  while (true) {
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double sign = (bits & 0x100) != 0 ? -1.0 : 1.0;
    const double x = unit(bits) * x_edge[i];
    if (x < x_edge[i + 1]) return sign * x;
    if (i == 0) {
      // The tail beyond r by Marsaglia's method (1964): exact, accepting about 92% of tries.
      const double r = x_edge[1];
      while (true) {
        const double a = -std::log1p(-uniform()) / r;
        const double b = -std::log1p(-uniform());
        if (2 * b >= a * a) return sign * (r + a);
      }
    }
    if (f[i] + uniform() * (f[i + 1] - f[i]) < std::exp(-0.5 * x * x)) return sign * x;
    bits = next_u64();
  }
}

std::uint64_t RngStream::poisson(double mean) {
  if (mean < 10) {  // inversion: walk the CDF from 0
    double p = std::exp(-mean);
    double cdf = p;
    const double u = uniform();
    std::uint64_t k = 0;
    // A u within rounding of 1 could outrun the summed CDF; the tail beyond 100 at a mean below
    // 10 is below 1e-60.
    while (u > cdf && k < 100) {
      ++k;
      p *= mean / static_cast<double>(k);
      cdf += p;
    }
    return k;
  }
  const double root = std::sqrt(mean);
  const double log_mean = std::log(mean);
  const double b = 0.931 + 2.53 * root;
  const double a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = std::log(1.1239 + 1.1328 / (b - 3.4));
  const double vr = 0.9277 - 3.6224 / (b - 2);
  while (true) {
    const double u = uniform() - 0.5;
    const double v = uniform();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<std::uint64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    // The exact test, against the Poisson probability of k: v / α / (a/us² + b) ≤ P(k).
    if (std::log(v) + log_inv_alpha - std::log(a / (us * us) + b) <=
        -mean + k * log_mean - std::lgamma(k + 1)) {
      return static_cast<std::uint64_t>(k);
    }
  }
}

}  // namespace fleetsim
