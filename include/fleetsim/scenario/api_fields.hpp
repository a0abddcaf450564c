// The fields each object type fleetsim decodes has upstream (Kubernetes, Karpenter, KEDA,
// eksctl), derived from their sources by tools/api_fields/derive_api_fields.py. They tell a typo
// from a field fleetsim reads past: an unread field that upstream has is known but not modelled
// (a warning, or nothing when inert); one upstream does not have is unknown (an error, as
// `kubectl apply --validate=strict`, unless manifests are read leniently).
#pragma once

#include <span>
#include <string_view>

namespace fleetsim {

struct ApiType {
  std::string_view name;
  std::span<const std::string_view> fields;  // sorted
  // Free-form: any field may appear (a KEDA trigger's metadata, whose keys depend on the
  // scaler), so an unread one is only ever "not modelled".
  bool open = false;

  // Whether upstream has `field` (always, for an open type).
  bool has(std::string_view field) const;
};

// How unknown manifest fields are treated: errors (strict, the default) or warnings (lenient,
// for manifests written against a newer API than fleetsim reads).
enum class FieldValidation { Strict, Lenient };

namespace api {
// clang-format off
extern const ApiType ObjectMeta, LabelSelector, LabelSelectorRequirement, PodTemplateSpec, PodSpec,
    Container, ResourceRequirements, Probe, Lifecycle, LifecycleHandler, Toleration, Taint,
    Affinity, NodeAffinity, NodeSelector, NodeSelectorTerm, NodeSelectorRequirement,
    PreferredSchedulingTerm, PodAffinity, PodAntiAffinity, PodAffinityTerm,
    WeightedPodAffinityTerm, TopologySpreadConstraint, Pod, Deployment, DeploymentSpec,
    DeploymentStrategy, RollingUpdateDeployment, DaemonSet, DaemonSetSpec, Job, JobSpec,
    PriorityClass, PodDisruptionBudget, PodDisruptionBudgetSpec, CapacityBuffer,
    CapacityBufferSpec, HorizontalPodAutoscaler,
    HorizontalPodAutoscalerSpec, CrossVersionObjectReference, MetricSpec, ObjectMetricSource,
    PodsMetricSource, ResourceMetricSource, ContainerResourceMetricSource, ExternalMetricSource,
    MetricIdentifier, MetricTarget, HorizontalPodAutoscalerBehavior, HPAScalingRules,
    HPAScalingPolicy, NodePool, NodePoolSpec, NodeClaimTemplate, NodeClaimTemplateObjectMeta,
    NodeClaimTemplateSpec, NodeSelectorRequirementWithMinValues, NodeClassReference, Disruption,
    Budget, EC2NodeClass, EC2NodeClassSpec, KubeletConfiguration, BlockDeviceMapping, BlockDevice,
    ScaledObject, ScaledObjectSpec, ScaleTarget, AdvancedConfig, HorizontalPodAutoscalerConfig,
    Fallback, ScaleTriggers, ClusterConfig, ClusterMeta, AutoModeConfig, EksctlNodeGroup,
    EksctlManagedNodeGroup, NodeGroupTaint, NodeGroupInstancesDistribution, NodeGroupBottlerocket,
    AutoModeNodeClass, AutoModeNodeClassSpec, AutoModeEphemeralStorage, List, NodeOverlay,
    NodeOverlaySpec,
    PodGroup, PodGroupSpec, PodGroupSchedulingPolicy, GangSchedulingPolicy, PodSchedulingGroup;
// clang-format on
extern const ApiType TriggerMetadata;
}  // namespace api

}  // namespace fleetsim
