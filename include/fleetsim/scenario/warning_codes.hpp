// Each kind of load warning has a stable code, printed with it, so that a user can silence the
// ones they have read (--suppress CODE, or the scenario's warnings: {suppress: [CODE]}).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace fleetsim {

enum class WarningCode {
  UnmodelledField,  // a field upstream has that fleetsim reads past
  UnmodelledKind,   // a kind fleetsim does not read
  UnknownField,     // a field upstream does not have, read leniently
  DeprecatedField,
  UnusedSettings,  // settings or objects for another provisioner
  UnusedNodePool,
  UnusedNodeClass,
  UnusedAutoModeConfig,
  MissingNodeClass,
  NoNodePool,
  PodsUnhostable,
  ModelKeepsOffTypes,  // types a service's model cannot run on, kept off as a nodeAffinity would
  BestEffortPods,
  EndlessJob,
  CheckpointIgnored,
  DoNotDisruptIgnored,
  TopologyKeyNotModelled,
  AffinityTermWithoutSelector,
  NamespaceLabels,
  SubnetsNotResolved,
  VolumeKept,
  SpotNoInterruptionBand,
  KedaIdleReplicaCount,
  AutoModeExpiryCapped,
  AutoModeSpotToSpot,
  NodeGroupInApply,
  PriorityExpanderEmpty,
  ProbeNeverPasses,
  SpotNoInterruptionRate,      // spot knobs that act on interruptions nothing draws
  TraceRowsAfterEnd,           // trace rows that start after the run's duration
  IgnoredTraceColumn,          // a trace column documented as read past
  PriorityExpanderUnused,      // priorities while the expander list has no priority
  PriorityConfigMapNamespace,  // the priority ConfigMap outside kube-system
  UnmodelledAutoscalerFlag,    // a Cluster Autoscaler flag fleetsim does not model
  ModelAssumed,                // an LLM service that names no model: kDefaultModel
  EngineNote,                  // the engine runs the model differently on some type (fp8 W8A16)
  NominalAccelerator,          // Inferentia or Trainium: the engine model on nominal figures
  GpusUnused,                  // tensor parallelism below the pod's GPU request
  ServerFlagNotRead,           // an inference server's flag whose value fleetsim cannot use
  SchedulerPluginNotModelled,  // a kube-scheduler plugin or its args fleetsim does not model
  NoSchedulerProfile,          // pods whose schedulerName no profile has: they stay Pending
  NodeOverlayGateOff,          // NodeOverlays while karpenter.feature_gates.node_overlay is off
  NodeOverlayConflict,         // an overlay Karpenter refuses: equal weight, same offering/resource
  NodeOverlayUnused,           // an overlay that selects no instance type, or not Karpenter's
  CapacityBufferIgnored,       // a CapacityBuffer behind a feature gate that is off, or not run
  SharedGpuMemory,      // time-sliced replicas whose gpu_memory_utilization cannot share a GPU
  FluidModeNotApplied,  // serving_mode: fluid over a service that runs request by request
  PodGroupMissing,      // pods name a PodGroup that does not exist: they wait at PreEnqueue
  GangExceedsLimits,    // a gang's minCount pods need more than any NodePool's limits allow
  AsgTagIgnored,        // a node-template tag the Cluster Autoscaler skips (not a quantity, …)
  DraNotModelled,       // a DRA field or CEL selector beyond what fleetsim allocates by
  DraPodsIgnored,       // pods with ResourceClaims that a provisioner will not provision for
};

// The code's name: "unmodelled-field", "pods-unhostable", …
std::string_view to_string(WarningCode code);
std::optional<WarningCode> parse_warning_code(std::string_view name);
// Every code's name, in declaration order.
std::span<const std::string_view> warning_code_names();

}  // namespace fleetsim
