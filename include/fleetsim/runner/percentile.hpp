// Exact nearest-rank percentiles over a sample the recorder holds in full.
#pragma once

#include <cstdint>
#include <vector>

namespace fleetsim {

// The nearest-rank percentile of an ascending-sorted sample: the value at rank
// ceil(percent/100 × n), 1-based. The percent is an integer so the rank needs no floating point
// (0.99 × 100 is 99.00000000000001 in doubles, whose ceiling would be one rank too high).
// An empty sample gives 0.
std::int64_t nearest_rank(const std::vector<std::int64_t>& sorted, int percent);

}  // namespace fleetsim
