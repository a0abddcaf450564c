// Decoding of karpenter.sh/v1 NodePool manifests.
#pragma once

#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Karpenter's CRD bounds: spec.weight 1..100, at most 50 disruption budgets.
inline constexpr int kMinNodePoolWeight = 1;
inline constexpr int kMaxNodePoolWeight = 100;
inline constexpr std::size_t kMaxDisruptionBudgets = 50;

// A list of taints ({key, value, effect}), as a NodePool template or an eksctl node group has.
std::vector<Taint> decode_taints(const YamlValue& list, DecodeContext& ctx);

// Decodes a NodePool manifest whose apiVersion and kind were already read from `manifest`.
NodePool decode_nodepool(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
