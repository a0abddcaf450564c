#include "fleetsim/scenario/auto_mode_setup.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/scenario/nodeclass_decoder.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kDefaultNodeClass = "default";

// The built-in pools as EKS creates them (set-builtin-node-pools.adoc, and the NodePools a
// cluster shows): on-demand C, M and R types of generation 5 or newer, Linux; system also on
// arm64 and tainted CriticalAddonsOnly. Consolidation after 30 s, 10% budget, 14-day expiry,
// 24-hour termination grace period.
NodePool builtin_pool(const std::string& name) {
  NodePool pool;
  pool.name = name;
  pool.requirements.add(std::string(label::kCapacityType),
                        Requirement::make(Operator::In, {"on-demand"}));
  pool.requirements.add("eks.amazonaws.com/instance-category",
                        Requirement::make(Operator::In, {"c", "m", "r"}));
  pool.requirements.add("eks.amazonaws.com/instance-generation",
                        Requirement::make(Operator::Gt, {"4"}));
  pool.requirements.add(std::string(label::kArch),
                        name == "system" ? Requirement::make(Operator::In, {"amd64", "arm64"})
                                         : Requirement::make(Operator::In, {"amd64"}));
  pool.requirements.add(std::string(label::kOs), Requirement::make(Operator::In, {"linux"}));
  if (name == "system")
    pool.taints.push_back(Taint{.key = "CriticalAddonsOnly", .effect = TaintEffect::NoSchedule});
  pool.expire_after = kAutoModeDefaultExpireAfter;
  pool.termination_grace_period = hours(24);
  pool.disruption.consolidate_after = seconds(30);
  pool.node_class = std::string(kDefaultNodeClass);
  pool.auto_mode_node_class = true;
  pool.built_in = true;
  return pool;
}

void apply_auto_mode(ManifestSet& set, WarningLog& warnings) {
  for (NodePool& pool : set.nodepools)
    apply_nodepool_rules(ProvisionerKind::EksAutoMode, pool, warnings);
  const std::vector<std::string> builtin =
      set.auto_mode_node_pools.value_or(std::vector<std::string>{"general-purpose", "system"});
  for (const std::string& name : builtin) {
    auto mine = std::find_if(set.nodepools.begin(), set.nodepools.end(),
                             [&](const NodePool& p) { return p.name == name; });
    if (mine != set.nodepools.end()) {
      throw ConfigError(mine->where, "metadata.name",
                        fmt::format("{} is EKS Auto Mode's built-in NodePool, which cannot be "
                                    "changed: name yours otherwise, or leave {} out of the "
                                    "ClusterConfig's autoModeConfig.nodePools",
                                    name, name));
    }
    set.nodepools.push_back(builtin_pool(name));
  }
  std::erase_if(set.node_classes, [&](const EC2NodeClass& c) {
    if (c.auto_mode) return false;
    warnings.add(WarningCode::UnusedNodeClass, c.where, "EC2NodeClass",
                 fmt::format("EC2NodeClass {} is not used: EKS Auto Mode's NodePools name a "
                             "NodeClass",
                             c.name));
    return true;
  });
  const bool has_default =
      std::any_of(set.node_classes.begin(), set.node_classes.end(),
                  [](const EC2NodeClass& c) { return c.name == kDefaultNodeClass; });
  if (!has_default) {
    set.node_classes.push_back(EC2NodeClass{.name = std::string(kDefaultNodeClass),
                                            .auto_mode = true,
                                            .block_devices = {auto_mode_root_volume()}});
  }
}

}  // namespace

void apply_nodepool_rules(ProvisionerKind provisioner, NodePool& pool, WarningLog& warnings) {
  if (provisioner != ProvisionerKind::EksAutoMode) {
    if (pool.auto_mode_node_class) {
      throw ConfigError(pool.node_class_where, "spec.template.spec.nodeClassRef",
                        "an eks.amazonaws.com NodeClass is EKS Auto Mode's: set provisioner: "
                        "eks-auto-mode, or name an EC2NodeClass");
    }
    return;
  }
  if (!pool.auto_mode_node_class) {
    throw ConfigError(pool.node_class_where, "spec.template.spec.nodeClassRef",
                      "under EKS Auto Mode a NodePool names an Auto Mode NodeClass: "
                      "{group: eks.amazonaws.com, kind: NodeClass, name: default}");
  }
  // Auto Mode's defaults for what the NodePool leaves out (create-node-pool.adoc).
  if (!pool.expire_after_given) pool.expire_after = kAutoModeDefaultExpireAfter;
  if (!pool.termination_grace_period) pool.termination_grace_period = hours(24);
  if (!pool.expire_after || *pool.expire_after > kAutoModeMaxNodeLifetime) {
    warnings.add(WarningCode::AutoModeExpiryCapped, pool.where,
                 "NodePool.spec.template.spec.expireAfter",
                 fmt::format("NodePool {}: EKS Auto Mode replaces nodes after at most 21 days; "
                             "expireAfter is 504h",
                             pool.name));
    pool.expire_after = kAutoModeMaxNodeLifetime;
  }
}

void apply_provisioner_rules(ProvisionerKind provisioner, ManifestSet& set, WarningLog& warnings) {
  if (provisioner == ProvisionerKind::EksAutoMode) {
    apply_auto_mode(set, warnings);
    return;
  }
  for (NodePool& pool : set.nodepools) apply_nodepool_rules(provisioner, pool, warnings);
  std::erase_if(set.node_classes, [&](const EC2NodeClass& c) {
    if (!c.auto_mode) return false;
    warnings.add(WarningCode::UnusedNodeClass, c.where, "NodeClass",
                 fmt::format("NodeClass {} is EKS Auto Mode's and is not used: the provisioner "
                             "is not eks-auto-mode",
                             c.name));
    return true;
  });
  if (set.auto_mode_node_pools)
    warnings.add(WarningCode::UnusedAutoModeConfig, set.auto_mode_where,
                 "ClusterConfig.autoModeConfig",
                 "Auto Mode's built-in NodePools are added only under provisioner: eks-auto-mode");
}

}  // namespace fleetsim
