// Workload manifests: Pod, Deployment, Job, DaemonSet, PriorityClass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/int_or_percent.hpp"
#include "fleetsim/k8s/pod_spec.hpp"

namespace fleetsim {

// The annotation giving a pod's or Job's run time when no trace supplies it.
inline constexpr std::string_view kDurationAnnotation = "fleetsim.io/duration";
// The annotations of a Job or Pod that checkpoints: how much of its work it saves at a time, and
// what a replacement spends (reloading the checkpoint) before it resumes.
inline constexpr std::string_view kCheckpointIntervalAnnotation = "fleetsim.io/checkpoint-interval";
inline constexpr std::string_view kRestartOverheadAnnotation = "fleetsim.io/restart-overhead";
// The annotation that keeps Karpenter from disrupting a pod or node.
inline constexpr std::string_view kDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";

enum class WorkloadKind { Pod, Deployment, Job, DaemonSet };
std::string_view to_string(WorkloadKind k);

// A Deployment's spec.strategy: RollingUpdate (maxSurge and maxUnavailable, 25% each by default)
// or Recreate.
struct DeploymentStrategy {
  bool recreate = false;
  IntOrPercent max_surge{.value = 25, .percent = true};
  IntOrPercent max_unavailable{.value = 25, .percent = true};
  friend bool operator==(const DeploymentStrategy&, const DeploymentStrategy&) = default;
};

// ResolveFenceposts (deployment/util): maxSurge rounds up and maxUnavailable down for `replicas`;
// when both come to 0, maxUnavailable is 1 so that a rollout can progress.
struct Fenceposts {
  std::int64_t max_surge = 0;
  std::int64_t max_unavailable = 0;
  friend bool operator==(const Fenceposts&, const Fenceposts&) = default;
};
Fenceposts resolve_fenceposts(const DeploymentStrategy& strategy, std::int64_t replicas);

// A Job's checkpoints: without an interval, an interrupted pod loses all its work.
struct Checkpointing {
  std::optional<SimDuration> interval;
  SimDuration restart_overhead{0};
  friend bool operator==(const Checkpointing&, const Checkpointing&) = default;
};

struct Workload {
  WorkloadKind kind = WorkloadKind::Pod;
  std::string name;
  std::string namespace_name = "default";
  PodTemplate pod;
  std::int32_t replicas = 1;     // Deployment
  bool replicas_set = false;     // the manifest gave spec.replicas (an apply then sets it)
  DeploymentStrategy strategy;   // Deployment
  std::int32_t parallelism = 1;  // Job
  std::int32_t completions = 1;  // Job
  // Run time of each pod (Job, bare Pod); nullopt = runs until the end.
  std::optional<SimDuration> run_time;
  Checkpointing checkpointing;  // Job, bare Pod
  SimTime created_at{};         // when it enters the cluster
  SourceLocation where;
};

struct PriorityClass {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
  PreemptionPolicy preemption_policy = PreemptionPolicy::PreemptLowerPriority;  // API default
  SourceLocation where;
};

}  // namespace fleetsim
