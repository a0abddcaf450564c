// A policy/v1 PodDisruptionBudget as a manifest gives it: plain data, read by the scenario and by
// PodDisruptionBudgets.
#pragma once

#include <optional>
#include <string>

#include "fleetsim/core/error.hpp"
#include "fleetsim/k8s/int_or_percent.hpp"
#include "fleetsim/k8s/label_selector.hpp"

namespace fleetsim {

enum class UnhealthyPodEvictionPolicy { IfHealthyBudget, AlwaysAllow };

struct PodDisruptionBudgetSpec {
  std::string name;
  std::string namespace_name = "default";
  std::optional<IntOrPercent> min_available;  // exactly one of these two is set
  std::optional<IntOrPercent> max_unavailable;
  std::optional<LabelSelector> selector;  // nullopt selects no pod; {} selects the namespace
  UnhealthyPodEvictionPolicy unhealthy_pod_eviction_policy =
      UnhealthyPodEvictionPolicy::IfHealthyBudget;
  SourceLocation where;
};

}  // namespace fleetsim
