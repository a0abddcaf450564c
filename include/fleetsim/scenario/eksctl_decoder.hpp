// Decoding of eksctl's ClusterConfig (eksctl.io/v1alpha5): its managed and self-managed node
// groups, each an Auto Scaling group.
#pragma once

#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/node_group.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// eksctl's default instance type when a group names none (DefaultNodeType).
inline constexpr std::string_view kEksctlDefaultInstanceType = "m5.large";

// Decodes a ClusterConfig whose apiVersion and kind were already read from `manifest`: sizes as
// eksctl defaults and checks them (validation.go), instance types by name (checked against the
// catalog when the scenario loads). Fields that change how a node boots but not what it costs
// or holds (IAM, SSH, AMI, tags, VPC, add-ons, …) are accepted silently (inert_fields.cpp);
// other unmodelled fields give one "not modelled; ignored" warning each.
struct ClusterConfigSpec {
  std::vector<NodeGroup> groups;
  // autoModeConfig.nodePools when autoModeConfig is enabled: EKS Auto Mode's built-in NodePools.
  std::optional<std::vector<std::string>> auto_mode_node_pools;
  SourceLocation auto_mode_where;
};
ClusterConfigSpec decode_cluster_config(const YamlMap& manifest, DecodeContext& ctx);

// Against the catalog: names unique, instance types known, zones the catalog has (a group
// without zones gets every zone its types are sold in), and an offering for each capacity type
// the group's distribution asks for. Throws ConfigError at the field.
void check_node_groups(std::vector<NodeGroup>& groups, const Catalog& catalog);

}  // namespace fleetsim
