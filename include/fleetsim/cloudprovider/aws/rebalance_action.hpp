// What the provisioner did on an EC2 rebalance recommendation (the spot_rebalance_recommendation
// event's reason).
#pragma once

#include <cstdint>

namespace fleetsim {

// Karpenter takes no action on a rebalance recommendation (interruption/controller.go,
// actionForMessage: NoAction).
enum class RebalanceAction : std::uint8_t { NoAction };

}  // namespace fleetsim
