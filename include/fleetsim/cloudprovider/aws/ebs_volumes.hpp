// A node's EBS volumes: their size (their price is the price source's).
#pragma once

#include <cstdint>
#include <span>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// Total bytes of the volumes; without any, Karpenter's default root volume (one 20 GiB gp3:
// aws_sizing::kDefaultRootVolumeBytes).
std::int64_t ebs_bytes(std::span<const BlockDevice> volumes);

}  // namespace fleetsim
