// The well-known label requirements of an instance type, as Karpenter's AWS provider builds them.
#pragma once

#include <string>
#include <string_view>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

// Single-valued labels for the type's own attributes; zone and capacity type In the values of its
// offerings. GPU and accelerator keys are DoesNotExist on types without them, so that a pod or
// NodePool asking `instance-gpu-count Exists` excludes CPU types (Karpenter computeRequirements).
Requirements compute_requirements(const InstanceType& t);

// Karpenter's lowerKabobCase: "Radeon Pro V520" → "radeon-pro-v520".
std::string lower_kebab_case(std::string_view s);

// The manufacturer of an accelerator known by name ("inferentia2" → "aws"); empty if unknown.
std::string_view accelerator_manufacturer_for(std::string_view accelerator_name);

}  // namespace fleetsim
