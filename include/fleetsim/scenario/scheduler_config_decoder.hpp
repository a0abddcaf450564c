// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) manifests: the kube-scheduler's
// profiles as its configuration file writes them, defaulted and validated as upstream's
// (apis/config/v1/defaults.go, default_plugins.go, validation/validation*.go).
#pragma once

#include <vector>

#include "fleetsim/kube/scheduler_profile.hpp"
#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

namespace api {
// Its top-level fields, listed by hand from kube-scheduler's config/v1/types.go.
extern const ApiType KubeSchedulerConfiguration;
}  // namespace api

struct DecodedSchedulerConfig {
  std::vector<SchedulerProfile> profiles;
  SourceLocation where;  // the manifest's kind
};

// percentageOfNodesToScore (0–100, a profile's overriding the top level's); profiles[] with
// schedulerName (default default-scheduler, unique), plugins (score and multiPoint enabled with
// weights and disabled, "*" included; disabling a filter fleetsim applies, or the queue sort or
// bind plugin, is refused) and pluginConfig for NodeResourcesFit (scoringStrategy),
// NodeResourcesBalancedAllocation (resources), PodTopologySpread (defaultConstraints,
// defaultingType) and InterPodAffinity (hardPodAffinityWeight). Upstream plugins and fields
// fleetsim does not model get a warning; unknown plugin names and fields, and values upstream's
// validation refuses, fail.
DecodedSchedulerConfig decode_scheduler_config(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
