// Builders for the autoscaling tests: HPA specs, metric specs and uniform inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/autoscaling/keda.hpp"

namespace fleetsim::test {

inline constexpr std::int64_t kMilli = 1000;

struct HpaShape {
  std::int32_t min = 1;
  std::int32_t max = 100;
  std::vector<MetricSpec> metrics;
  std::optional<HpaBehavior> behavior;
};

inline HorizontalPodAutoscalerSpec make_hpa(HpaShape s) {
  HorizontalPodAutoscalerSpec h;
  h.name = "web";
  h.scale_target = {.api_version = "apps/v1", .kind = "Deployment", .name = "web"};
  h.min_replicas = s.min;
  h.max_replicas = s.max;
  h.metrics = std::move(s.metrics);
  h.behavior = std::move(s.behavior);
  return h;
}

inline MetricSpec pods_average(std::int64_t target_milli) {
  return {.source = MetricSourceType::Pods,
          .name = "vllm_num_requests_running",
          .target = {.type = MetricTargetType::AverageValue, .milli = target_milli}};
}
inline MetricSpec cpu_utilization(std::int32_t percent) {
  return {.source = MetricSourceType::Resource,
          .name = "cpu",
          .target = {.type = MetricTargetType::Utilization, .average_utilization = percent}};
}
inline MetricSpec external(MetricTargetType type, std::int64_t target_milli) {
  return {.source = MetricSourceType::External,
          .name = "queue_depth",
          .target = {.type = type, .milli = target_milli}};
}
inline MetricSpec object_value(std::int64_t target_milli) {
  return {.source = MetricSourceType::Object,
          .name = "requests_per_second",
          .target = {.type = MetricTargetType::Value, .milli = target_milli},
          .described_object = {
              .api_version = "networking.k8s.io/v1", .kind = "Ingress", .name = "main"}};
}

// Scaling rules; an empty policy list leaves the default policies.
inline ScalingRules rules(std::vector<ScalingPolicy> policies,
                          std::optional<std::int32_t> window = std::nullopt,
                          std::optional<SelectPolicy> select = std::nullopt) {
  std::optional<std::vector<ScalingPolicy>> p;
  if (!policies.empty()) p = std::move(policies);
  return {.stabilization_window_seconds = window,
          .select_policy = select,
          .policies = std::move(p),
          .tolerance = std::nullopt};
}
inline ScalingPolicy pods_per(std::int32_t value, std::int32_t period) {
  return {.type = ScalingPolicyType::Pods, .value = value, .period_seconds = period};
}
inline ScalingPolicy percent_per(std::int32_t value, std::int32_t period) {
  return {.type = ScalingPolicyType::Percent, .value = value, .period_seconds = period};
}

// A per-pod reading where every pod reports `milli` (nullopt: no pod has a sample).
inline MetricReading every_pod(std::size_t pods, std::optional<std::int64_t> milli,
                               std::int64_t request_milli = 1000) {
  PodMetricValue v{.milli = milli, .request_milli = request_milli};
  return {.available = true, .pods = std::vector<PodMetricValue>(pods, v), .milli = 0};
}
inline MetricReading value_reading(std::int64_t milli) {
  return {.available = true, .pods = {}, .milli = milli};
}
inline MetricReading failed_reading() { return {.available = false}; }

// `replicas` Ready pods and one reading per metric.
inline HpaInputs inputs(std::int32_t replicas, std::vector<MetricReading> readings) {
  return {.current_replicas = replicas,
          .status_replicas = replicas,
          .pods = std::vector<HpaPod>(static_cast<std::size_t>(replicas)),
          .metrics = std::move(readings)};
}
// The common case: one Pods metric, every pod at `milli`.
inline HpaInputs pods_at(std::int32_t replicas, std::int64_t milli) {
  return inputs(replicas, {every_pod(static_cast<std::size_t>(replicas), milli)});
}

inline SimTime t(std::int64_t s) { return at(seconds(s)); }

}  // namespace fleetsim::test
