// The GPU Operator's MIG layout label (nvidia.com/mig.config) on NodePool templates and node
// groups, and the device plugin's config label, checked against the GPUs each can launch.
#pragma once

#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

// The GPU Operator's label that names a node's MIG layout (a mig-parted config).
inline constexpr std::string_view kMigConfigLabel = "nvidia.com/mig.config";

// Refuses a layout a GPU the pool or group may launch does not have (a GPU without MIG, or a
// name mig-parted's default config does not give that GPU), naming the type, and what the device
// plugin would refuse there (a config label naming no config, the single strategy over a layout
// of several profiles, MPS over MIG). Loads the MIG layout table into cfg.gpu_operator when any
// layout is asked for.
void check_gpu_layouts(ScenarioConfig& cfg, WarningLog& warnings);

}  // namespace fleetsim
