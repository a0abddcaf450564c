// The scenario's gpu_operator section (the GPU Operator's Helm values that decide how nodes share
// their GPUs) and the NVIDIA device plugin's ConfigMap it names among the manifests.
#pragma once

#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Reads `gpu_operator` into cfg.gpu_operator and the device plugin configs of the ConfigMap its
// device_plugin_config names; every other ConfigMap gets the unmodelled-kind warning.
void read_gpu_operator(const YamlMap& top, ManifestSet& set, ScenarioConfig& cfg,
                       WarningLog& warnings);

// One config of the device plugin's ConfigMap (its YAML, as the plugin's config file reads it).
DevicePluginConfig decode_device_plugin_config(const YamlValue& config, std::string name);

}  // namespace fleetsim
