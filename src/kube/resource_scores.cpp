#include "fleetsim/kube/resource_scores.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace fleetsim {

namespace {

constexpr std::array<ResourceIndex, 2> kCpuMemory{resource::kCpu, resource::kMemory};
const FitScoring kDefaultFit{};

// calculateResourceAllocatableRequest: an extended resource the pod does not ask for is not
// scored (allocatable 0 leaves it out), and neither is "pods", which is no scalar resource.
bool scored(ResourceIndex r, const Resources& pod) {
  if (r == resource::kPods) return false;
  const bool extended =
      r != resource::kCpu && r != resource::kMemory && r != resource::kEphemeralStorage;
  return !extended || pod[r] != 0;
}

std::int64_t least_requested(std::int64_t requested, std::int64_t capacity) {
  if (requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

std::int64_t most_requested(std::int64_t requested, std::int64_t capacity) {
  return std::min(requested, capacity) * kMaxNodeScore / capacity;
}

}  // namespace

std::int64_t broken_linear(std::span<const ShapePoint> shape, std::int64_t p, std::int64_t scale) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (p > shape[i].utilization) continue;
    if (i == 0) return shape[0].score * scale;
    const ShapePoint& a = shape[i - 1];
    const ShapePoint& b = shape[i];
    return a.score * scale +
           (b.score - a.score) * scale * (p - a.utilization) / (b.utilization - a.utilization);
  }
  return shape.empty() ? 0 : shape.back().score * scale;
}

std::int64_t fit_score(const FitScoring& scoring, const Resources& requested,
                       const Resources& allocatable, const Resources& pod) {
  std::int64_t sum = 0, weights = 0;
  if (scoring.type == ScoringStrategyType::RequestedToCapacityRatio) {
    // The shape's scores are 0–10 (MaxCustomPriorityScore), scaled to 0–100 before use.
    constexpr std::int64_t kScale = kMaxNodeScore / 10;
    for (const ResourceWeight& rw : scoring.resources) {
      const std::int64_t capacity = allocatable[rw.resource];
      if (!scored(rw.resource, pod) || capacity == 0) continue;
      const std::int64_t used = requested[rw.resource];
      const std::int64_t utilization =
          used >= capacity ? 100 : std::max<std::int64_t>(used, 0) * 100 / capacity;
      const std::int64_t score = broken_linear(scoring.shape, utilization, kScale);
      if (score <= 0) continue;
      sum += score * rw.weight;
      weights += rw.weight;
    }
    if (weights == 0) return 0;
    return std::llround(static_cast<double>(sum) / static_cast<double>(weights));
  }
  const bool least = scoring.type == ScoringStrategyType::LeastAllocated;
  for (const ResourceWeight& rw : scoring.resources) {
    const std::int64_t capacity = allocatable[rw.resource];
    if (!scored(rw.resource, pod) || capacity == 0) continue;
    const std::int64_t used = requested[rw.resource];
    sum += (least ? least_requested(used, capacity) : most_requested(used, capacity)) * rw.weight;
    weights += rw.weight;
  }
  return weights == 0 ? 0 : sum / weights;
}

std::int64_t least_allocated_score(const Resources& requested, const Resources& allocatable) {
  Resources cpu_memory;  // what the pod asks for matters only for extended resources
  return fit_score(kDefaultFit, requested, allocatable, cpu_memory);
}

std::int64_t balanced_allocation_score(std::span<const ResourceIndex> resources,
                                       const Resources& requested, const Resources& allocatable,
                                       const Resources& pod) {
  std::array<double, resource::kMaxResources> shares{};
  std::size_t n = 0;
  double total = 0;
  for (ResourceIndex r : resources) {
    if (!scored(r, pod) || allocatable[r] == 0 || n == shares.size()) continue;
    shares[n] =
        std::min(1.0, static_cast<double>(requested[r]) / static_cast<double>(allocatable[r]));
    total += shares[n++];
  }
  double spread = 0;
  if (n == 2) {
    spread = std::abs(shares[0] - shares[1]) / 2;
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += (shares[i] - mean) * (shares[i] - mean);
    spread = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<std::int64_t>((1 - spread) * static_cast<double>(kMaxNodeScore));
}

std::int64_t balanced_allocation_score(const Resources& requested, const Resources& allocatable) {
  return balanced_allocation_score(kCpuMemory, requested, allocatable, Resources{});
}

}  // namespace fleetsim
