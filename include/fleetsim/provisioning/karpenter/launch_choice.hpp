// Which offering a NodeClaim launches: Karpenter's AWS launch filters and capacity-type choice.
#pragma once

#include <span>
#include <vector>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

// Karpenter AWS maxInstanceTypes: a CreateFleet request carries at most 60 types.
inline constexpr std::size_t kMaxFleetInstanceTypes = 60;

struct LaunchPlan {
  CapacityType capacity_type = CapacityType::OnDemand;
  std::vector<LaunchCandidate> candidates;  // cheapest first; empty when nothing is launchable
};

// Capacity type reserved > spot > on-demand, the first the claim allows with an available
// offering; then the exotic filter (no GPU/accelerator/metal type while an ordinary one fits),
// the spot filter (no spot offering dearer than the cheapest on-demand one) and truncation to
// 60 types. The fleet API's price-capacity-optimized spot strategy is modelled as cheapest
// offering with capacity: the cloud provider walks the candidates in order. Each candidate
// carries the node it would make (allocatable, DaemonSet overhead) from the pool's view.
LaunchPlan plan_launch(const SchedulingContext& context, const NewNodeClaim& claim,
                       std::span<const std::uint8_t> offering_usable);

}  // namespace fleetsim
