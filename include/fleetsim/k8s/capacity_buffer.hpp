// The autoscaling.x-k8s.io/v1beta1 CapacityBuffer: spare capacity kept for pods that do not exist
// yet, and how many virtual pods it asks for (Karpenter's pkg/controllers/capacitybuffer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"

namespace fleetsim {

// The one provisioning strategy both autoscalers implement, and the CRD's default.
inline constexpr std::string_view kActiveCapacityStrategy = "buffer.x-k8s.io/active-capacity";

struct CapacityBufferLimits {
  Resources values;
  Resources set_mask;  // 1 where a limit is given
};

struct CapacityBuffer {
  struct ScalableRef {
    std::string api_group;
    std::string kind;  // "Deployment"
    std::string name;
  };
  std::string name;
  std::string namespace_name = "default";
  std::optional<std::string> provisioning_strategy;
  std::optional<std::string> pod_template_ref;  // a PodTemplate's name
  std::optional<ScalableRef> scalable_ref;
  std::optional<std::int32_t> replicas;
  std::optional<std::int32_t> percentage;
  std::optional<CapacityBufferLimits> limits;
  SourceLocation where;
};

// calculateLimitReplicas: how many pods of `requests` the limits hold, the least over the
// resources both name (floor); nullopt when no limit names a resource the pod requests.
std::optional<std::int32_t> buffer_limit_replicas(const CapacityBufferLimits& limits,
                                                  const Resources& requests);

// calculatePercentageReplicas: ceil(scalable × percentage / 100), at least 1 when both are
// positive.
std::int32_t buffer_percentage_replicas(std::int32_t scalable_replicas, std::int32_t percentage);

// computeReplicas, the status's replicas: the largest of `replicas` and the percentage of the
// scalable target's replicas (only with a scalableRef, not a podTemplateRef), capped by the
// limits; with neither size, what the limits hold. `scalable_replicas`: the target's replicas
// when the buffer resolves through its scalableRef.
std::int32_t buffer_replicas(const CapacityBuffer& buffer, const Resources& pod_requests,
                             std::optional<std::int32_t> scalable_replicas);

}  // namespace fleetsim
