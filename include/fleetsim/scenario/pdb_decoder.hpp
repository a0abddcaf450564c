// policy/v1 PodDisruptionBudget manifests.
#pragma once

#include "fleetsim/k8s/pod_disruption_budget_spec.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// metadata.name and namespace; spec.minAvailable or spec.maxUnavailable (exactly one: an integer
// or a percentage), spec.selector (matchLabels and matchExpressions), and
// spec.unhealthyPodEvictionPolicy.
PodDisruptionBudgetSpec decode_pdb(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
