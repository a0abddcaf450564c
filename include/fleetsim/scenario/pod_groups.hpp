// PodGroups (scheduling.k8s.io/v1alpha2): decoded, and resolved into the pods that name them.
#pragma once

#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

struct ScenarioConfig;
class WarningLog;

// A PodGroup: its schedulingPolicy, gang (minCount) or basic (min_count 0).
struct PodGroupObject {
  std::string name;
  std::string namespace_name = "default";
  std::int32_t min_count = 0;
  SourceLocation where;
};

// minCount below 1, both or neither of basic and gang: refused as the API server's validation
// refuses them.
PodGroupObject decode_pod_group(const YamlMap& manifest, DecodeContext& ctx);

// Gives each pod spec that names a PodGroup its gang's minCount (PodSpec::gang_min_count), and
// sets cfg.pod_groups when any pod names one. A PodGroup no pod of its namespace has: its pods
// wait at PreEnqueue for ever (pod-group-missing). A gang whose minCount pods need more than
// every NodePool's limits allow waits for ever too (gang-exceeds-limits), as upstream.
void adopt_pod_groups(const std::vector<PodGroupObject>& groups, ScenarioConfig& cfg,
                      WarningLog& warnings);

}  // namespace fleetsim
