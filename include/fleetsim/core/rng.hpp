// Seeded random streams, one per component, reproducible on every platform and thread count.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fleetsim {

namespace rng_detail {

// The layer edges x[0..256] of the two ziggurats (rng.cpp explains them), as literals:
// constant-initialized, so the inline draws below reach them with a plain load, no guard, and a
// stream used during another file's static initialization still sees them.
extern const std::array<double, 257> kExponentialEdges;
extern const std::array<double, 257> kHalfNormalEdges;

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// 53 bits as a double in [0, 1).
constexpr double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace rng_detail

// xoshiro256** seeded by splitmix64 from (scenario seed, component name). The distributions are
// written here rather than taken from <random>, whose algorithms differ between library versions.
//
// The word generator, uniform() and the ziggurats' fast paths are inline: the serving path draws
// several times a request, and a call costs more than the draw. The rare rest of a ziggurat draw
// (the wedges, the tail) stays out of line.
class RngStream {
 public:
  RngStream(std::uint64_t seed, std::string_view component);

  [[gnu::always_inline]] std::uint64_t next_u64() {
    const std::uint64_t result = rng_detail::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rng_detail::rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  [[gnu::always_inline]] double uniform() { return rng_detail::unit(next_u64()); }
  // Uniform integer in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n);
  // Exponential with the given mean (> 0), and with mean 1. Ziggurat (Marsaglia & Tsang).
  [[gnu::always_inline]] double exponential(double mean) { return mean * standard_exponential(); }
  // One word gives the layer (its low 8 bits) and the position in it (its high 53 bits); about
  // 99% of draws land inside their layer's rectangle and end here.
  [[gnu::always_inline]] double standard_exponential() {
    const std::uint64_t bits = next_u64();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double x = rng_detail::unit(bits) * rng_detail::kExponentialEdges[i];
    if (x < rng_detail::kExponentialEdges[i + 1]) [[likely]]
      return x;
    return standard_exponential_rest(bits);
  }
  // Standard normal. Ziggurat (Marsaglia & Tsang), as standard_exponential with bit 8 as the
  // sign.
  [[gnu::always_inline]] double normal() {
    const std::uint64_t bits = next_u64();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double sign = (bits & 0x100) != 0 ? -1.0 : 1.0;
    const double x = rng_detail::unit(bits) * rng_detail::kHalfNormalEdges[i];
    if (x < rng_detail::kHalfNormalEdges[i + 1]) [[likely]]
      return sign * x;
    return normal_rest(bits);
  }
  // Log-normal with the given median and shape sigma of the underlying normal.
  [[gnu::always_inline]] double lognormal(double median, double sigma) {
    return median * std::exp(sigma * normal());
  }
  // Poisson with the given mean (>= 0, finite): inversion below a mean of 10, above it
  // Hörmann's transformed rejection with squeeze (PTRS; "The transformed rejection method for
  // generating Poisson random variables", Insurance: Mathematics and Economics 12, 1993).
  std::uint64_t poisson(double mean);

 private:
  // The rest of a draw whose first word `bits` fell outside its layer's rectangle.
  double standard_exponential_rest(std::uint64_t bits);
  double normal_rest(std::uint64_t bits);

  std::uint64_t s_[4];
};

// FNV-1a, stable across platforms; used to derive stream seeds from names.
std::uint64_t stable_hash(std::string_view text);

}  // namespace fleetsim
