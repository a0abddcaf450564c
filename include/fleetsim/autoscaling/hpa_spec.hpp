// The autoscaling/v2 HorizontalPodAutoscaler spec as fleetsim reads it, with upstream's defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// kube-controller-manager flag defaults (pkg/controller/podautoscaler/config/v1alpha1/
// defaults.go); each is a --horizontal-pod-autoscaler-* flag.
// -sync-period
inline constexpr SimDuration kHpaSyncPeriod = seconds(15);
// -tolerance
inline constexpr double kHpaTolerance = 0.1;
// -downscale-stabilization
inline constexpr SimDuration kHpaDownscaleStabilization = minutes(5);
// -cpu-initialization-period
inline constexpr SimDuration kHpaCpuInitializationPeriod = minutes(5);
// -initial-readiness-delay
inline constexpr SimDuration kHpaInitialReadinessDelay = seconds(30);

// API defaults (pkg/apis/autoscaling/v2/defaults.go).
inline constexpr std::int32_t kHpaDefaultMinReplicas = 1;
inline constexpr std::int32_t kHpaDefaultCpuUtilization = 80;  // when spec.metrics is empty
inline constexpr std::int32_t kHpaScaleUpLimitPercent = 100;
inline constexpr std::int32_t kHpaScaleUpLimitMinimumPods = 4;
inline constexpr std::int32_t kHpaScaleUpPeriodSeconds = 15;
inline constexpr std::int32_t kHpaScaleDownLimitPercent = 100;
inline constexpr std::int32_t kHpaScaleDownPeriodSeconds = 15;

// The legacy path's scale-up cap, max(2 × current, 4) (horizontal.go: scaleUpLimitFactor and
// scaleUpLimitMinimum).
inline constexpr double kHpaLegacyScaleUpFactor = 2.0;
inline constexpr double kHpaLegacyScaleUpMinimum = 4.0;

// API validation bounds (pkg/apis/autoscaling/validation/validation.go).
inline constexpr std::int32_t kHpaMaxStabilizationWindowSeconds = 3600;
inline constexpr std::int32_t kHpaMaxPolicyPeriodSeconds = 1800;

enum class MetricSourceType { Resource, Pods, Object, External };
enum class MetricTargetType { Utilization, AverageValue, Value };
enum class ScalingPolicyType { Pods, Percent };
enum class SelectPolicy { Max, Min, Disabled };

std::string_view to_string(MetricSourceType type);
std::string_view to_string(MetricTargetType type);

struct CrossVersionObjectReference {
  std::string api_version;
  std::string kind;
  std::string name;
};

struct MetricTarget {
  MetricTargetType type = MetricTargetType::AverageValue;
  std::int32_t average_utilization = 0;  // Utilization: percent of the pods' requests
  std::int64_t milli = 0;                // AverageValue or Value, in thousandths (MilliValue())
};

struct MetricSpec {
  MetricSourceType source = MetricSourceType::Resource;
  // Resource: "cpu" or "memory"; Pods, Object and External: the metric's name.
  std::string name;
  SourceLocation name_where;  // where the name is written
  MetricTarget target;
  CrossVersionObjectReference described_object;               // Object only
  std::vector<std::pair<std::string, std::string>> selector;  // metric.selector.matchLabels
};

struct ScalingPolicy {
  ScalingPolicyType type = ScalingPolicyType::Pods;
  std::int32_t value = 0;
  std::int32_t period_seconds = 0;
  friend bool operator==(const ScalingPolicy&, const ScalingPolicy&) = default;
};

// One direction of spec.behavior as written: unset fields take the defaults below.
struct ScalingRules {
  std::optional<std::int32_t> stabilization_window_seconds;
  std::optional<SelectPolicy> select_policy;
  std::optional<std::vector<ScalingPolicy>> policies;
  std::optional<double> tolerance;  // HPAConfigurableTolerance (KEP-4951)
};

struct HpaBehavior {
  std::optional<ScalingRules> scale_up;
  std::optional<ScalingRules> scale_down;
};

struct HorizontalPodAutoscalerSpec {
  std::string name;
  std::string namespace_name = "default";
  CrossVersionObjectReference scale_target;
  std::int32_t min_replicas = kHpaDefaultMinReplicas;
  std::int32_t max_replicas = 1;
  std::vector<MetricSpec> metrics;  // empty reads as CPU at 80% utilization, as the API defaults
  std::optional<HpaBehavior> behavior;  // nil selects the legacy normalization
  SourceLocation where;
};

// One direction of the behavior after API defaulting and the controller's fill-in of the
// scale-down window: every field set.
struct ResolvedScalingRules {
  std::int32_t stabilization_window_seconds = 0;
  SelectPolicy select_policy = SelectPolicy::Max;
  std::vector<ScalingPolicy> policies;
  std::optional<double> tolerance;  // nullopt: the controller-wide tolerance
};

// GenerateHPAScaleUpRules: window 0, Max of Pods 4/15 s and Percent 100/15 s.
ResolvedScalingRules resolve_scale_up(const std::optional<ScalingRules>& rules);
// GenerateHPAScaleDownRules, then maybeInitScaleDownStabilizationWindow: the window left nil by
// the API is filled with the controller's downscale stabilization flag.
ResolvedScalingRules resolve_scale_down(const std::optional<ScalingRules>& rules,
                                        SimDuration downscale_stabilization);

// The metrics an HPA acts on: spec.metrics, or the API's default (CPU at 80%) when empty.
std::vector<MetricSpec> effective_metrics(const HorizontalPodAutoscalerSpec& spec);

}  // namespace fleetsim
