#include "fleetsim/kube/resource_scores.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace fleetsim {

namespace {

constexpr std::array<ResourceIndex, 2> kScored{resource::kCpu, resource::kMemory};

}  // namespace

std::int64_t least_allocated_score(const Resources& requested, const Resources& allocatable) {
  std::int64_t sum = 0, weights = 0;
  for (ResourceIndex r : kScored) {
    const std::int64_t capacity = allocatable[r];
    if (capacity == 0) continue;
    ++weights;
    if (requested[r] > capacity) continue;
    sum += (capacity - requested[r]) * kMaxNodeScore / capacity;
  }
  return weights == 0 ? 0 : sum / weights;
}

std::int64_t balanced_allocation_score(const Resources& requested, const Resources& allocatable) {
  std::array<double, kScored.size()> shares{};
  std::size_t n = 0;
  for (ResourceIndex r : kScored) {
    if (allocatable[r] == 0) continue;
    shares[n++] =
        std::min(1.0, static_cast<double>(requested[r]) / static_cast<double>(allocatable[r]));
  }
  const double spread = n == 2 ? std::abs(shares[0] - shares[1]) / 2 : 0.0;
  return static_cast<std::int64_t>((1 - spread) * static_cast<double>(kMaxNodeScore));
}

}  // namespace fleetsim
