// Decoding of the scenario's `cluster_autoscaler:` block (the Cluster Autoscaler's flags) and of
// the priority expander's ConfigMap.
#pragma once

#include <vector>

#include "fleetsim/provisioning/cluster_autoscaler/settings.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// The ConfigMap the priority expander reads (in the Cluster Autoscaler's namespace).
inline constexpr std::string_view kPriorityExpanderConfigMap =
    "cluster-autoscaler-priority-expander";

// `cluster_autoscaler: {scan_interval, expander, scale_down_utilization_threshold, …}`: keys are
// the flags' names with underscores; unset keys keep upstream's defaults. Upstream's other flags
// get a warning each (cluster_autoscaler_flags.hpp).
ClusterAutoscalerSettings decode_cluster_autoscaler(const YamlValue& value, WarningLog& warnings);

// The priority expander's `priorities`: a map from priority to a list of regular expressions,
// either as YAML or as the text the ConfigMap's data holds; highest priority first.
std::vector<ExpanderPriority> decode_expander_priorities(const YamlValue& value);

}  // namespace fleetsim
