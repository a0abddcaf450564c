// Decoding of Kubernetes label selectors (matchLabels, matchExpressions) with the API server's
// validation, for PodDisruptionBudgets and pod (anti-)affinity terms.
#pragma once

#include "fleetsim/k8s/label_selector.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

LabelSelector decode_label_selector(const YamlValue& value, DecodeContext& ctx);

}  // namespace fleetsim
