// karpenter.sh/v1alpha1 NodeOverlay manifests, with the CRD's and the controller's validation.
#pragma once

#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// The CRD's bounds on spec.weight (unset reads as 0).
inline constexpr std::int64_t kMinOverlayWeight = 1;
inline constexpr std::int64_t kMaxOverlayWeight = 10'000;

// metadata.name; spec.requirements, spec.capacity (extended resources only), spec.price or
// spec.priceAdjustment (not both), spec.weight.
NodeOverlay decode_node_overlay(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
