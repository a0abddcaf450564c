// Which offering a NodeClaim launches on EC2: Karpenter's AWS launch filters and capacity-type
// choice (aws:pkg/providers/instance/instance.go).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/cloudprovider/aws/price_source.hpp"
#include "fleetsim/cloudprovider/cloud_provider.hpp"

namespace fleetsim {

// Karpenter AWS maxInstanceTypes: a CreateFleet request carries at most 60 types.
inline constexpr std::size_t kMaxFleetInstanceTypes = 60;

// One offering the launch may use.
struct LaunchCandidate {
  std::uint32_t option = 0;    // index into LaunchRequest::types
  std::uint32_t type = 0;      // catalog index
  std::uint32_t offering = 0;  // index into the type's offerings
  double price = 0.0;
};

struct LaunchPlan {
  CapacityType capacity_type = CapacityType::OnDemand;
  std::vector<LaunchCandidate> candidates;  // cheapest first; empty when nothing is launchable
};

// Capacity type reserved > spot > on-demand, the first the claim allows with an available
// offering; then the exotic filter (no GPU/accelerator/metal type while an ordinary one fits),
// the spot filter (no spot offering dearer than the cheapest on-demand one) and truncation to
// 60 types. The fleet API's price-capacity-optimized spot strategy is modelled as cheapest
// offering with capacity: the EC2 model walks the candidates in order. Prices are the price
// source's now, changed by the pool's NodeOverlays (`price_by_offering`, empty: none);
// `offering_usable` is per global offering (empty: all usable).
LaunchPlan plan_launch(const PriceSource& prices, const Requirements& requirements,
                       std::span<const InstanceTypeOption> types,
                       std::span<const std::uint8_t> offering_usable,
                       std::span<const OverlayPrice> price_by_offering = {});

}  // namespace fleetsim
