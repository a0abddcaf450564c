#include "fleetsim/scenario/node_overlay_setup.hpp"

#include <fmt/format.h>

#include "fleetsim/scheduling/node_overlay_store.hpp"

namespace fleetsim {

void adopt_node_overlays(std::vector<NodeOverlay> overlays, ScenarioConfig& cfg,
                         WarningLog& warnings) {
  if (overlays.empty()) return;
  if (cfg.provisioner != ProvisionerKind::Karpenter) {
    for (const NodeOverlay& o : overlays)
      warnings.add(WarningCode::NodeOverlayUnused, o.where, "NodeOverlay",
                   fmt::format("NodeOverlay {} is not applied: NodeOverlays are Karpenter's, "
                               "and fleetsim applies them under provisioner: karpenter only",
                               o.name));
    return;
  }
  if (!cfg.karpenter.node_overlay) {
    for (const NodeOverlay& o : overlays)
      warnings.add(WarningCode::NodeOverlayGateOff, o.where, "NodeOverlay",
                   fmt::format("NodeOverlay {} is ignored: Karpenter's NodeOverlay feature gate "
                               "is alpha and off by default; set "
                               "karpenter.feature_gates.node_overlay: true to apply it",
                               o.name));
    return;
  }
  // Karpenter's controller reports these in the overlays' status; the scenario's NodePools at
  // the start decide them (a scripted apply of NodePools is resolved again, silently).
  const OverlayResolution r = resolve_node_overlays(*cfg.catalog, cfg.nodepools, overlays);
  std::vector<std::uint8_t> conflicting(overlays.size(), 0);
  for (const OverlayConflict& c : r.conflicts) {
    if (conflicting[c.overlay] != 0) continue;
    conflicting[c.overlay] = 1;
    const NodeOverlay& o = overlays[c.overlay];
    warnings.add(
        WarningCode::NodeOverlayConflict, o.where, "NodeOverlay",
        fmt::format("NodeOverlay {} conflicts with NodeOverlay {} (both weight {}) on instance "
                    "type {} of NodePool {}: Karpenter marks {} ValidationSucceeded=False "
                    "(Conflict) and applies none of it, keeping {} (the later name at equal "
                    "weight); give them different weights or disjoint requirements",
                    o.name, overlays[c.with].name, o.weight, c.instance_type, c.nodepool, o.name,
                    overlays[c.with].name));
  }
  for (std::size_t k = 0; k < overlays.size(); ++k) {
    if (conflicting[k] != 0 || r.matched[k] != 0) continue;
    warnings.add(WarningCode::NodeOverlayUnused, overlays[k].where, "NodeOverlay",
                 fmt::format("NodeOverlay {} selects no instance type of any NodePool: its "
                             "requirements match no type's labels with a NodePool's template "
                             "labels and karpenter.sh/nodepool",
                             overlays[k].name));
  }
  cfg.node_overlays = std::move(overlays);
}

}  // namespace fleetsim
