// autoscaling.x-k8s.io/v1beta1 CapacityBuffer manifests.
#pragma once

#include "fleetsim/k8s/capacity_buffer.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// metadata.name and namespace; spec.replicas and spec.percentage (0 or more, the percentage at
// most 100), spec.scalableRef (a Deployment), spec.podTemplateRef, spec.limits and
// spec.provisioningStrategy, with the CRD's rules: not both references, and a podTemplateRef
// needs replicas or limits.
CapacityBuffer decode_capacity_buffer(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
