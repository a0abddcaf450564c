#include "fleetsim/autoscaling/hpa_spec.hpp"

namespace fleetsim {

std::string_view to_string(MetricSourceType type) {
  switch (type) {
    case MetricSourceType::Resource:
      return "Resource";
    case MetricSourceType::Pods:
      return "Pods";
    case MetricSourceType::Object:
      return "Object";
    case MetricSourceType::External:
      return "External";
  }
  return "?";
}

std::string_view to_string(MetricTargetType type) {
  switch (type) {
    case MetricTargetType::Utilization:
      return "Utilization";
    case MetricTargetType::AverageValue:
      return "AverageValue";
    case MetricTargetType::Value:
      return "Value";
  }
  return "?";
}

namespace {

// copyHPAScalingRules: every field the user set replaces the default one.
ResolvedScalingRules apply(const std::optional<ScalingRules>& from, ResolvedScalingRules to) {
  if (!from) return to;
  if (from->select_policy) to.select_policy = *from->select_policy;
  if (from->stabilization_window_seconds) {
    to.stabilization_window_seconds = *from->stabilization_window_seconds;
  }
  if (from->policies) to.policies = *from->policies;
  if (from->tolerance) to.tolerance = from->tolerance;
  return to;
}

}  // namespace

ResolvedScalingRules resolve_scale_up(const std::optional<ScalingRules>& rules) {
  ResolvedScalingRules defaults{.stabilization_window_seconds = 0,
                                .select_policy = SelectPolicy::Max,
                                .policies = {{.type = ScalingPolicyType::Pods,
                                              .value = kHpaScaleUpLimitMinimumPods,
                                              .period_seconds = kHpaScaleUpPeriodSeconds},
                                             {.type = ScalingPolicyType::Percent,
                                              .value = kHpaScaleUpLimitPercent,
                                              .period_seconds = kHpaScaleUpPeriodSeconds}},
                                .tolerance = std::nullopt};
  return apply(rules, std::move(defaults));
}

ResolvedScalingRules resolve_scale_down(const std::optional<ScalingRules>& rules,
                                        SimDuration downscale_stabilization) {
  ResolvedScalingRules defaults{.stabilization_window_seconds =
                                    static_cast<std::int32_t>(downscale_stabilization / seconds(1)),
                                .select_policy = SelectPolicy::Max,
                                .policies = {{.type = ScalingPolicyType::Percent,
                                              .value = kHpaScaleDownLimitPercent,
                                              .period_seconds = kHpaScaleDownPeriodSeconds}},
                                .tolerance = std::nullopt};
  return apply(rules, std::move(defaults));
}

std::vector<MetricSpec> effective_metrics(const HorizontalPodAutoscalerSpec& spec) {
  if (!spec.metrics.empty()) return spec.metrics;
  return {MetricSpec{.source = MetricSourceType::Resource,
                     .name = "cpu",
                     .target = {.type = MetricTargetType::Utilization,
                                .average_utilization = kHpaDefaultCpuUtilization,
                                .milli = 0},
                     .described_object = {},
                     .selector = {}}};
}

}  // namespace fleetsim
