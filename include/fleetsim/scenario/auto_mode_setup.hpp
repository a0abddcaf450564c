// What a scenario becomes under each provisioner's rules for NodePools and node classes: EKS
// Auto Mode's built-in NodePools, its NodeClass and its 21-day node lifetime; and which inputs
// another provisioner does not read.
#pragma once

#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

// Auto Mode caps a node's life at 21 days (automode.adoc); its built-in pools expire at 14.
inline constexpr SimDuration kAutoModeMaxNodeLifetime = hours(21 * 24);
inline constexpr SimDuration kAutoModeDefaultExpireAfter = hours(14 * 24);

// Under EKS Auto Mode: adds the built-in NodePools general-purpose and system (those of a
// ClusterConfig's autoModeConfig.nodePools, else both) and the default NodeClass; requires every
// NodePool to name an Auto Mode NodeClass; caps expireAfter at 21 days. Under the other
// provisioners: a NodePool naming an Auto Mode NodeClass is an error, the NodeClasses and
// autoModeConfig warn. Throws ConfigError naming the field.
void apply_provisioner_rules(ProvisionerKind provisioner, ManifestSet& set, WarningLog& warnings);
// The same rules for one NodePool (a scripted apply's).
void apply_nodepool_rules(ProvisionerKind provisioner, NodePool& pool, WarningLog& warnings);

}  // namespace fleetsim
