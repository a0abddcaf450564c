// A node's EBS volumes: their size (their price is the price source's).
#pragma once

#include <cstdint>
#include <span>

#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// Karpenter's default when an EC2NodeClass has no blockDeviceMappings (AL2023): one 20 GiB gp3.
inline constexpr std::int64_t kDefaultRootVolumeBytes = 20LL << 30;

// Total bytes of the volumes; the default root volume when there are none.
std::int64_t ebs_bytes(std::span<const BlockDevice> volumes);

}  // namespace fleetsim
