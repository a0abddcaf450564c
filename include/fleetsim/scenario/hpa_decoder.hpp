// Decoding of autoscaling/v2 HorizontalPodAutoscaler manifests, with the API server's validation.
#pragma once

#include "fleetsim/autoscaling/hpa_spec.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Decodes a manifest whose apiVersion and kind were already read from `manifest`.
HorizontalPodAutoscalerSpec decode_hpa(const YamlMap& manifest, DecodeContext& ctx);

// Decodes spec.behavior: scaleUp and scaleDown rules. KEDA's
// advanced.horizontalPodAutoscalerConfig.behavior has the same shape.
HpaBehavior decode_hpa_behavior(const YamlValue& value, DecodeContext& ctx);

}  // namespace fleetsim
