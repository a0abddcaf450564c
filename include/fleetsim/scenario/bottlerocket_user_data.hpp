// Bottlerocket's settings, in an EC2NodeClass's userData (TOML) or an eksctl node group's
// bottlerocket.settings: the NVIDIA device plugin's MIG partitioning
// (settings.kubelet-device-plugins.nvidia) is read as the nodes' MIG layout.
#pragma once

#include <optional>

#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Whether the class boots Bottlerocket: amiFamily Bottlerocket, or an amiSelectorTerms alias
// bottlerocket@<version>. Reads the fields without marking them read.
bool is_bottlerocket_node_class(const YamlMap& spec);

// The MIG settings of Bottlerocket TOML userData, or nullopt when device-partitioning-strategy is
// not "mig". Malformed TOML, or a MIG profile value Bottlerocket's settings API refuses, fails at
// its line; settings fleetsim does not model get one warning (the device plugin's sharing
// strategies by name).
std::optional<BottlerocketMig> decode_bottlerocket_user_data(const YamlValue& user_data,
                                                             DecodeContext& ctx);
// The same from the settings as a mapping (an eksctl node group's bottlerocket.settings), whose
// unmodelled settings are warned of on `field`.
std::optional<BottlerocketMig> decode_bottlerocket_settings(const YamlValue& settings,
                                                            std::string_view field,
                                                            DecodeContext& ctx);

}  // namespace fleetsim
