#include "fleetsim/core/rng.hpp"

#include <array>
#include <cmath>

namespace fleetsim {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// 53 bits as a double in [0, 1).
double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Marsaglia & Tsang's ziggurat ("The Ziggurat Method for Generating Random Variables", J. Stat.
// Software 5(8), 2000) with 256 layers of equal area v under a decreasing density f on [0, ∞).
// Layer i (0 < i < 256) spans heights f(x[i])..f(x[i+1]) and widths 0..x[i]; layer 0 is the
// base rectangle below f(r) plus the tail beyond r, drawn as a rectangle of width v / f(r).
// About 99% of draws cost one 64-bit word, a multiply and a comparison: no log, no cos.
struct Ziggurat {
  std::array<double, 257> x{};
  std::array<double, 257> f{};

  template <typename Density, typename Inverse>
  Ziggurat(double r, double v, Density density, Inverse inverse) {
    x[0] = v / density(r);
    x[1] = r;
    for (int i = 2; i < 256; ++i) x[i] = inverse(v / x[i - 1] + density(x[i - 1]));
    x[256] = 0;
    for (int i = 0; i < 257; ++i) f[i] = density(x[i]);
  }
};

// The constants r and v for 256 layers are the paper's. Built on first use, so a stream used
// during another file's static initialization still sees the tables.
const Ziggurat& exponential_layers() {
  static const Ziggurat z(
      7.69711747013104972, 3.949659822581572e-3, [](double t) { return std::exp(-t); },
      [](double y) { return -std::log(y); });
  return z;
}

const Ziggurat& half_normal_layers() {
  static const Ziggurat z(
      3.6541528853610088, 4.92867323399e-3, [](double t) { return std::exp(-0.5 * t * t); },
      [](double y) { return std::sqrt(-2.0 * std::log(y)); });
  return z;
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

std::uint64_t RngStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RngStream::uniform() { return unit(next_u64()); }

std::uint64_t RngStream::below(std::uint64_t n) {
  // Lemire's multiply-shift with rejection: unbiased.
  while (true) {
    __uint128_t m = static_cast<__uint128_t>(next_u64()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low >= n || low >= (-n) % n) return static_cast<std::uint64_t>(m >> 64);
  }
}

// One word gives the layer (its low 8 bits) and the position in it (its high 53 bits).
double RngStream::standard_exponential() {
  const Ziggurat& z = exponential_layers();
  double shift = 0;  // the tail beyond r is r + Exp(1), the exponential being memoryless
  while (true) {
    const std::uint64_t bits = next_u64();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double x = unit(bits) * z.x[i];
    if (x < z.x[i + 1]) return shift + x;
    if (i == 0) {
      shift += z.x[1];
      continue;
    }
    if (z.f[i] + uniform() * (z.f[i + 1] - z.f[i]) < std::exp(-x)) return shift + x;
  }
}

// As standard_exponential, with bit 8 as the sign.
double RngStream::normal() {
  const Ziggurat& z = half_normal_layers();
  while (true) {
    const std::uint64_t bits = next_u64();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double sign = (bits & 0x100) != 0 ? -1.0 : 1.0;
    const double x = unit(bits) * z.x[i];
    if (x < z.x[i + 1]) return sign * x;
    if (i == 0) {
      // The tail beyond r by Marsaglia's method (1964): exact, accepting about 92% of tries.
      const double r = z.x[1];
      while (true) {
        const double a = -std::log1p(-uniform()) / r;
        const double b = -std::log1p(-uniform());
        if (2 * b >= a * a) return sign * (r + a);
      }
    }
    if (z.f[i] + uniform() * (z.f[i + 1] - z.f[i]) < std::exp(-0.5 * x * x)) return sign * x;
  }
}

double RngStream::exponential(double mean) { return mean * standard_exponential(); }

double RngStream::lognormal(double median, double sigma) {
  return median * std::exp(sigma * normal());
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
