// Decoding of pod templates and pod specs: effective requests, node affinity, tolerations,
// topology spread, priority, app containers' images, readiness and startup probe timing, and the
// annotations fleetsim acts on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fleetsim/core/error.hpp"
#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// Kubernetes' default when terminationGracePeriodSeconds is unset, and a bound that catches
// typos (a grace period longer than the 400-day scenario limit never ends).
inline constexpr std::int64_t kMaxTerminationGraceSeconds = 400LL * 24 * 3600;
// A probe's initialDelaySeconds or periodSeconds beyond the 400-day scenario limit is a typo.
inline constexpr std::int64_t kMaxProbeSeconds = 400LL * 24 * 3600;

// What a pod spec said about its priority. PriorityClass manifests may come later in the
// scenario, so the class is resolved after every manifest has loaded (priority_resolver.hpp).
struct PriorityRef {
  std::string class_name;                             // spec.priorityClassName; empty when unset
  std::optional<std::int32_t> value;                  // spec.priority when set
  SourceLocation where;                               // of priorityClassName, else of the pod spec
  std::string field;                                  // its path, for messages
  std::optional<PreemptionPolicy> preemption_policy;  // spec.preemptionPolicy when set
  SourceLocation preemption_policy_where;
  std::string preemption_policy_field;
};

enum class RestartPolicy { Always, OnFailure, Never };

struct DecodedPod {
  PodTemplate pod;
  PriorityRef priority;
  RestartPolicy restart_policy = RestartPolicy::Always;  // Kubernetes' default
  SourceLocation restart_policy_where;                   // of restartPolicy, else of the spec
  std::string restart_policy_field;                      // "spec.template.spec.restartPolicy"
  std::optional<SimDuration> run_time;                   // fleetsim.io/duration
  std::optional<SimDuration> checkpoint_interval;        // fleetsim.io/checkpoint-interval
  std::optional<SimDuration> restart_overhead;           // fleetsim.io/restart-overhead
};

// PreemptLowerPriority or Never (a pod's or a PriorityClass's preemptionPolicy).
PreemptionPolicy decode_preemption_policy(const YamlValue& v);

// A pod template ({metadata, spec}) of a Deployment, Job or DaemonSet.
DecodedPod decode_pod_template(const YamlValue& tmpl, DecodeContext& ctx);

// A pod's spec together with its already decoded metadata (a bare Pod, or a template's parts).
DecodedPod decode_pod(const ObjectMeta& meta, const YamlValue& spec, DecodeContext& ctx);

}  // namespace fleetsim
