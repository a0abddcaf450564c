// Decoding of karpenter.k8s.aws/v1 EC2NodeClass manifests.
#pragma once

#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// EBS limits (AWS EBS volume types documentation): volumes up to 64 TiB (io2 Block Express),
// at most 256,000 IOPS (io2 Block Express) and 2,000 MiB/s of throughput (gp3).
inline constexpr std::int64_t kMaxEbsVolumeBytes = 64LL * 1024 * 1024 * 1024 * 1024;
inline constexpr std::int64_t kMaxEbsIops = 256'000;
inline constexpr std::int64_t kMaxEbsThroughputMibps = 2'000;

// An EBS volume type: gp2, gp3, io1, io2, st1, sc1 or standard.
EbsVolumeType parse_volume_type(const YamlValue& v);

// Decodes an EC2NodeClass manifest whose apiVersion and kind were already read from `manifest`.
// Fields that change how a node boots but not what it costs or holds (AMI, role, subnets,
// security groups, tags, user data, …) give one "not modelled; ignored" warning each.
EC2NodeClass decode_node_class(const YamlMap& manifest, DecodeContext& ctx);

// Decodes an EKS Auto Mode NodeClass (eks.amazonaws.com/v1): its ephemeralStorage is the nodes'
// gp3 volume (80 GiB unless given); the rest shapes how a node boots and drifts it when changed.
EC2NodeClass decode_auto_mode_node_class(const YamlMap& manifest, DecodeContext& ctx);
// The volume of Auto Mode's nodes when the NodeClass does not size it: 80 GiB of gp3.
BlockDevice auto_mode_root_volume();

}  // namespace fleetsim
