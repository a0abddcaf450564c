// kube-scheduler's resource scores (pkg/scheduler/framework/plugins/noderesources), in upstream's
// arithmetic: NodeResourcesFit's three strategies over the resources a profile weighs (cpu and
// memory with weight 1 each by default) and BalancedAllocation over its resources.
#pragma once

#include <cstdint>
#include <span>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/kube/scheduler_profile.hpp"

namespace fleetsim {

inline constexpr std::int64_t kMaxNodeScore = 100;

// NodeResourcesFit's score for one node (resource_allocation.go, least_allocated.go,
// most_allocated.go, requested_to_capacity_ratio.go). `requested` is the node's and the pod's
// scoring requests (PodSpec::scoring_requests: cpu and memory count 100m / 200Mi for containers
// without requests), `pod` the pod's own requests. A resource the node has none of is left out,
// and so is an extended resource the pod does not request (and "pods", which upstream never
// scores). Per resource, LeastAllocated scores (allocatable − requested) × 100 ÷ allocatable
// (0 when requested exceeds it), MostAllocated requested × 100 ÷ allocatable (requested capped at
// allocatable), each as a weighted integer mean, truncated; RequestedToCapacityRatio scores the
// shape at the utilization (requested × 100 ÷ allocatable, 100 when over), the shape's scores
// ×10, and takes the weighted mean of the resources scoring above 0, rounded.
std::int64_t fit_score(const FitScoring& scoring, const Resources& requested,
                       const Resources& allocatable, const Resources& pod);

// The default profile's LeastAllocated over cpu and memory, weight 1 each.
std::int64_t least_allocated_score(const Resources& requested, const Resources& allocatable);

// helper.BuildBrokenLinearFunction: the shape's score (× scale) at utilization p, linear between
// points (integer division), flat before the first and after the last.
std::int64_t broken_linear(std::span<const ShapePoint> shape, std::int64_t p,
                           std::int64_t scale = 1);

// NodeResourcesBalancedAllocation (balanced_allocation.go): each resource's requested share,
// capped at 1, and 100 × (1 − their standard deviation), truncated (with two resources the
// deviation is |a − b| ÷ 2); a resource the node has none of, or an extended resource the pod
// does not request, is left out. `requested` is the node's and the pod's real requests.
std::int64_t balanced_allocation_score(std::span<const ResourceIndex> resources,
                                       const Resources& requested, const Resources& allocatable,
                                       const Resources& pod);
// Over cpu and memory, the default.
std::int64_t balanced_allocation_score(const Resources& requested, const Resources& allocatable);

}  // namespace fleetsim
