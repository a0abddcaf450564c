// What protects a pod from voluntary disruption: Karpenter's do-not-disrupt annotation.
#pragma once

#include <optional>
#include <string_view>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// karpenter.sh/do-not-disrupt's value: "true" → kForever; a positive Go duration ("5m", "1h") →
// that long after the pod starts; anything else → nullopt (Karpenter ignores it).
std::optional<SimDuration> parse_do_not_disrupt(std::string_view value);

// Whether the annotation protects the pod now (IsDoNotDisruptActive): a duration counts from the
// pod's start, which is its binding (status.startTime).
bool do_not_disrupt_active(const Pod& pod, SimTime now);

}  // namespace fleetsim
