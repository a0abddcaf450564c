// Decoders for the scenario file's own sections: manifest references, jobs, events,
// node_latencies and karpenter settings.
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// What the section decoders share.
struct SectionContext {
  std::filesystem::path base_dir;  // the scenario file's directory: paths are relative to it
  ManifestLoader& manifests;
  const Catalog& catalog;
  SimDuration duration;            // the scenario's length, for bounding event times
  WarningLog* warnings = nullptr;  // for decoders that warn (services' traces)
};

// A path written in the scenario, resolved against base_dir (absolute paths stay as written).
std::filesystem::path resolve_path(const YamlValue& text, const SectionContext& sc);

// A manifest reference: a file path (every document of the file), a directory (its .yaml, .yml
// and .json files in name order), or an inline manifest mapping.
void load_manifest_ref(const YamlValue& ref, const SectionContext& sc, ManifestSet& out);

struct DecodedJobSource {
  JobSource source;
  PriorityRef priority;
};
// `jobs:`: [{trace: path, template: path or inline Job/Pod manifest}].
std::vector<DecodedJobSource> decode_job_sources(const YamlValue& list, const SectionContext& sc);

// `scale:` as written: the Deployment ("name" or "namespace/name") is resolved by the loader.
struct ScaleRequest {
  std::string deployment;
  std::int32_t replicas = 0;
  SourceLocation deployment_where;
  std::string deployment_field;  // its path, for errors
};

struct DecodedEvent {
  SimDuration at;
  SourceLocation where;
  std::variant<ManifestSet, SpotInterruptionEvent, ScaleRequest, CapacityEvent> action;
};
// `events:`: [{at, apply: path or list}], [{at, spot_interruption: {instance_type, zone,
// count}}] and [{at, scale: {deployment, replicas}}], in file order. Only NodePools,
// EC2NodeClasses and Pod/Deployment/Job workloads may be applied.
std::vector<DecodedEvent> decode_events(const YamlValue& list, const SectionContext& sc);

// `node_latencies:` {cpu: {launch, registration, initialization, sigma}, gpu: {…},
// families: {g5: {…}}, image_pull_bandwidth: bytes per second as a quantity (60M, 100Mi; > 0)}.
// Unset phases keep their defaults (medians, spread by sigma); a phase set is fixed; sigma in
// [0, 1.5]. A family starts from the cpu or gpu values by its types.
NodeLatencies decode_node_latencies(const YamlValue& value, const Catalog& catalog);

// `spot:` {interruption_rate, availability: trace path, families: {FAMILY: rate}, scale,
// waves: {share, spread}, rebalance: {share, lead}}; a rate is band_midpoint, band_max,
// {band_quantile: Q} or {per_month: SHARE}. Warns when a band rate meets spot types the catalog
// gives no band.
SpotMarketSettings decode_spot_market(const YamlValue& value, const SectionContext& sc,
                                      WarningLog& warnings);

// `karpenter:` {batch_idle, batch_max}.
KarpenterSettings decode_karpenter_settings(const YamlValue& value);
// metrics: {aliases: {exporter_name: simulated_name}}.
// `gates`: report.json paths with min and/or max, for fleetsim check.
std::vector<Gate> decode_gates(const YamlValue& value);
MetricAliases decode_metric_aliases(const YamlValue& value);
// `kube_controller_manager: {kube_api_qps, kube_api_burst}`.
ApiLimits decode_controller_manager_settings(const YamlValue& value);

}  // namespace fleetsim
