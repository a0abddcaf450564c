// The kube-scheduler's profiles in a scenario: the KubeSchedulerConfiguration among its
// manifests (or the default profile), and each pod spec's profile by its spec.schedulerName.
#pragma once

#include <optional>

#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/scheduler_config_decoder.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

// Sets cfg.scheduler_profiles and every workload's, job template's and scripted workload's
// spec.scheduler_profile; a workload whose schedulerName no profile has gets a warning (its pods
// stay Pending, as no scheduler takes them).
void adopt_scheduler_profiles(std::optional<DecodedSchedulerConfig> config, ScenarioConfig& cfg,
                              WarningLog& warnings);

}  // namespace fleetsim
