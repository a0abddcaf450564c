// Seeded random streams, one per component, reproducible on every platform and thread count.
#pragma once

#include <cstdint>
#include <string_view>

namespace fleetsim {

// xoshiro256** seeded by splitmix64 from (scenario seed, component name). The distributions are
// written here rather than taken from <random>, whose algorithms differ between library versions.
class RngStream {
 public:
  RngStream(std::uint64_t seed, std::string_view component);

  std::uint64_t next_u64();
  // Uniform in [0, 1).
  double uniform();
  // Uniform integer in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n);
  // Exponential with the given mean (> 0), and with mean 1. Ziggurat (Marsaglia & Tsang).
  double exponential(double mean);
  double standard_exponential();
  // Standard normal. Ziggurat (Marsaglia & Tsang).
  double normal();
  // Log-normal with the given median and shape sigma of the underlying normal.
  double lognormal(double median, double sigma);
  // Poisson with the given mean (>= 0, finite): inversion below a mean of 10, above it
  // Hörmann's transformed rejection with squeeze (PTRS; "The transformed rejection method for
  // generating Poisson random variables", Insurance: Mathematics and Economics 12, 1993).
  std::uint64_t poisson(double mean);

 private:
  std::uint64_t s_[4];
};

// FNV-1a, stable across platforms; used to derive stream seeds from names.
std::uint64_t stable_hash(std::string_view text);

}  // namespace fleetsim
