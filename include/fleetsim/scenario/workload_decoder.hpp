// Decoding of workload manifests: v1 Pod, apps/v1 Deployment and DaemonSet, batch/v1 Job, and
// scheduling.k8s.io/v1 PriorityClass.
#pragma once

#include <cstdint>

#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/pod_decoder.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Kubernetes' scalability threshold of 150,000 pods per cluster (sig-scalability thresholds):
// a Deployment or Job asking for more replicas is a typo.
inline constexpr std::int64_t kMaxReplicas = 150'000;

// Kubernetes' priority bounds (k8s.io/api/scheduling/v1): user classes go up to one billion;
// the two system classes sit above it.
inline constexpr std::int32_t kHighestUserDefinablePriority = 1'000'000'000;
inline constexpr std::int32_t kSystemClusterCriticalPriority = 2'000'000'000;
inline constexpr std::int32_t kSystemNodeCriticalPriority = 2'000'001'000;

struct DecodedWorkload {
  Workload workload;
  PriorityRef priority;  // resolved once every PriorityClass is known
};

// Each decodes a manifest whose apiVersion and kind were already read from `manifest`.
DecodedWorkload decode_pod_manifest(const YamlMap& manifest, DecodeContext& ctx);
DecodedWorkload decode_deployment(const YamlMap& manifest, DecodeContext& ctx);
DecodedWorkload decode_job(const YamlMap& manifest, DecodeContext& ctx);
DecodedWorkload decode_daemonset(const YamlMap& manifest, DecodeContext& ctx);
PriorityClass decode_priority_class(const YamlMap& manifest, DecodeContext& ctx);

}  // namespace fleetsim
