// kube-scheduler's resource scores (pkg/scheduler/framework/plugins/noderesources), over cpu and
// memory with weight 1 each as the default profile configures them, in upstream's arithmetic.
#pragma once

#include <cstdint>

#include "fleetsim/core/resources.hpp"

namespace fleetsim {

inline constexpr std::int64_t kMaxNodeScore = 100;

// NodeResourcesFit, LeastAllocated (least_allocated.go): per resource (allocatable − requested)
// × 100 ÷ allocatable in integers, 0 where requested exceeds allocatable; a resource the node
// has none of is left out; the mean, truncated. `requested` is the node's and the pod's scoring
// requests (PodSpec::scoring_requests).
std::int64_t least_allocated_score(const Resources& requested, const Resources& allocatable);

// NodeResourcesBalancedAllocation (balanced_allocation.go): each resource's requested share,
// capped at 1, and 100 × (1 − |cpu share − memory share| ÷ 2), truncated; a resource the node
// has none of is left out. `requested` is the node's and the pod's real requests.
std::int64_t balanced_allocation_score(const Resources& requested, const Resources& allocatable);

}  // namespace fleetsim
