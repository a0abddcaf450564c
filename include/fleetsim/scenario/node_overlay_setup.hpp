// Which NodeOverlays a run applies: Karpenter's, behind its NodeOverlay feature gate, with a
// warning for each one that does not take effect and why.
#pragma once

#include <vector>

#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

// Keeps `overlays` in cfg.node_overlays when the provisioner is Karpenter and
// karpenter.feature_gates.node_overlay is on; warns otherwise, and about overlays that Karpenter
// refuses for a conflict or that select no instance type of the scenario's NodePools.
void adopt_node_overlays(std::vector<NodeOverlay> overlays, ScenarioConfig& cfg,
                         WarningLog& warnings);

}  // namespace fleetsim
