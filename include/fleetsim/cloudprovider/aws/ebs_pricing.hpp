// EBS volume prices (us-east-1), so a NodePool's EC2NodeClass adds its storage cost per node.
#pragma once

#include <span>

#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// Karpenter's default when an EC2NodeClass has no blockDeviceMappings (AL2023): one 20 GiB gp3.
inline constexpr std::int64_t kDefaultRootVolumeBytes = 20LL << 30;

// USD per hour for the volumes, from AWS's us-east-1 EBS price list (per GiB-month, 730 hours a
// month): gp3 $0.08 (+$0.005 per IOPS over 3000, +$0.04 per MiB/s over 125), gp2 $0.10,
// io1/io2 $0.125 (+$0.065 per provisioned IOPS), st1 $0.045, sc1 $0.015, standard $0.05.
double ebs_price_per_hour(std::span<const BlockDevice> volumes);

// Total bytes of the volumes; the default root volume when there are none.
std::int64_t ebs_bytes(std::span<const BlockDevice> volumes);

}  // namespace fleetsim
