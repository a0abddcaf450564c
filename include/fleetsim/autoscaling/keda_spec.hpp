// The KEDA ScaledObject spec (keda.sh/v1alpha1) as fleetsim reads it, and the HPA KEDA derives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/autoscaling/hpa_spec.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// KEDA's defaults (kedacore/keda: apis/keda/v1alpha1 and pkg/scaling/executor).
inline constexpr SimDuration kKedaDefaultPollingInterval = seconds(30);  // withtriggers_types.go
inline constexpr SimDuration kKedaDefaultCooldownPeriod = seconds(300);  // scale_executor.go
inline constexpr SimDuration kKedaDefaultInitialCooldownPeriod = seconds(0);
inline constexpr std::int32_t kKedaDefaultMinReplicaCount = 0;    // RequestScale
inline constexpr std::int32_t kKedaDefaultMaxReplicaCount = 100;  // scaledobject_types.go

enum class KedaTriggerType { Prometheus, Cpu, Memory };
enum class FallbackBehavior {
  Static,
  CurrentReplicas,
  CurrentReplicasIfHigher,
  CurrentReplicasIfLower
};

std::string_view to_string(KedaTriggerType type);

struct KedaTrigger {
  KedaTriggerType type = KedaTriggerType::Prometheus;
  std::string name;  // the trigger's optional name
  // metricType: prometheus takes AverageValue (default) or Value; cpu and memory take
  // Utilization or AverageValue.
  MetricTargetType metric_type = MetricTargetType::AverageValue;
  // prometheus
  std::string server_address;
  std::string query;  // PromQL, kept for the metrics pipeline to evaluate
  SourceLocation query_where;
  double threshold = 0;
  double activation_threshold = 0;
  bool ignore_null_values = true;  // an empty result reads as 0 rather than an error
  // cpu and memory: the target (percent, or milli-units of the resource per pod)
  std::int32_t utilization = 0;
  std::int64_t average_value_milli = 0;
  SourceLocation where;
};

struct KedaFallback {
  std::int32_t failure_threshold = 0;
  std::int32_t replicas = 0;
  FallbackBehavior behavior = FallbackBehavior::Static;
};

struct ScaledObjectSpec {
  std::string name;
  std::string namespace_name = "default";
  CrossVersionObjectReference scale_target;
  SimDuration polling_interval = kKedaDefaultPollingInterval;
  SimDuration cooldown_period = kKedaDefaultCooldownPeriod;
  SimDuration initial_cooldown_period = kKedaDefaultInitialCooldownPeriod;
  std::int32_t min_replica_count = kKedaDefaultMinReplicaCount;
  std::int32_t max_replica_count = kKedaDefaultMaxReplicaCount;
  std::optional<std::int32_t> idle_replica_count;
  std::optional<KedaFallback> fallback;
  std::optional<HpaBehavior> hpa_behavior;  // advanced.horizontalPodAutoscalerConfig.behavior
  std::vector<KedaTrigger> triggers;
  SourceLocation where;
};

// The HPA KEDA creates (controllers/keda/hpa.go): minReplicas = max(minReplicaCount, 1),
// maxReplicas = maxReplicaCount, the behavior copied, one metric per trigger in trigger order —
// External "s<index>-prometheus" for prometheus, Resource for cpu and memory.
HorizontalPodAutoscalerSpec keda_hpa_spec(const ScaledObjectSpec& so);

// KEDA's milli conversions (pkg/scalers/scaler.go: GetMetricTargetMili, GenerateMetricInMili):
// int64(value × 1000), truncating as Go's conversion does.
std::int64_t keda_milli(double value);

}  // namespace fleetsim
