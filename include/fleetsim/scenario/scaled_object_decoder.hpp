// Decoding of KEDA keda.sh/v1alpha1 ScaledObject manifests, with KEDA's own validation.
#pragma once

#include "fleetsim/autoscaling/keda_spec.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Decodes a manifest whose apiVersion and kind were already read from `manifest`. Triggers
// other than prometheus, cpu and memory fail with a ConfigError naming the trigger type.
ScaledObjectSpec decode_scaled_object(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
