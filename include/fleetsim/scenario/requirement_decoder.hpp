// Decoding of node selector requirements (NodePool requirements, pod node affinity) with the
// validation rules of Karpenter and Kubernetes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// NodePools accept Karpenter's Gte/Lte operators and minValues, and restrict label domains; pods
// accept the six operators of Kubernetes' node affinity; NodeOverlays take Karpenter's eight
// operators without minValues, and of the karpenter.sh domain only its well-known labels
// (karpenter.sh/nodepool, karpenter.sh/capacity-type), as its v1.ValidateRequirement does.
enum class RequirementSource { NodePool, Pod, NodeOverlay };

// Karpenter's NodePool validation (CRD `maxItems` on spec.template.spec.requirements).
inline constexpr std::size_t kMaxNodePoolRequirements = 100;
// Karpenter's CRD bounds on minValues.
inline constexpr int kMinMinValues = 1;
inline constexpr int kMaxMinValues = 50;

// Decodes a list of requirements ({key, operator, values, minValues}) and intersects each into
// `into`. Label aliases (beta.kubernetes.io/arch, failure-domain.beta.kubernetes.io/zone, …) are
// normalized to their current names, as Karpenter does.
void decode_requirements(const YamlValue& list, RequirementSource source, DecodeContext& ctx,
                         Requirements& into);

// Karpenter's NormalizedLabels: deprecated label keys and the keys they stand for.
std::string normalize_label_key(std::string_view key);

// Why a NodePool may not set or require this label (restricted domains, kubernetes.io/hostname,
// karpenter.sh/nodepool), or nullopt when it may. Mirrors Karpenter's v1 NodePool CRD rules.
std::optional<std::string> nodepool_label_restriction(std::string_view key);
// The same for a NodeOverlay's requirements (Karpenter's IsRestrictedLabel).
std::optional<std::string> overlay_label_restriction(std::string_view key);

}  // namespace fleetsim
