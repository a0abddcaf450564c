// Follows kedacore/keda: pkg/scaling/scale_handler.go (getScaledObjectState,
// GetScaledObjectMetrics), pkg/scaling/executor/scale_scaledobjects.go (RequestScale,
// scaleToZeroOrIdle, scaleFromZeroOrIdle), pkg/fallback/fallback.go and controllers/keda/hpa.go.
#include "fleetsim/autoscaling/keda.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

std::string_view to_string(KedaTriggerType type) {
  switch (type) {
    case KedaTriggerType::Prometheus:
      return "prometheus";
    case KedaTriggerType::Cpu:
      return "cpu";
    case KedaTriggerType::Memory:
      return "memory";
  }
  return "?";
}

std::string_view to_string(KedaAction action) {
  switch (action) {
    case KedaAction::None:
      return "None";
    case KedaAction::Activated:
      return "Activated";
    case KedaAction::Deactivated:
      return "Deactivated";
    case KedaAction::CoolingDown:
      return "CoolingDown";
    case KedaAction::RaisedToMin:
      return "RaisedToMin";
    case KedaAction::TriggerError:
      return "TriggerError";
  }
  return "?";
}

// int64(value * 1000), saturating where Go's conversion is unspecified (huge, ±Inf, NaN).
std::int64_t keda_milli(double value) { return saturate_to_int64(value * 1000); }

HorizontalPodAutoscalerSpec keda_hpa_spec(const ScaledObjectSpec& so) {
  HorizontalPodAutoscalerSpec hpa;
  hpa.name = "keda-hpa-" + so.name;
  hpa.namespace_name = so.namespace_name;
  hpa.scale_target = so.scale_target;
  hpa.min_replicas = so.min_replica_count > 0 ? so.min_replica_count : 1;
  hpa.max_replicas = so.max_replica_count;
  hpa.behavior = so.hpa_behavior;
  hpa.where = so.where;
  for (std::size_t i = 0; i < so.triggers.size(); ++i) {
    const KedaTrigger& t = so.triggers[i];
    MetricSpec m;
    if (t.type == KedaTriggerType::Prometheus) {
      m.source = MetricSourceType::External;
      m.name = fmt::format("s{}-prometheus", i);
      m.target = {
          .type = t.metric_type, .average_utilization = 0, .milli = keda_milli(t.threshold)};
      m.selector = {{"scaledobject.keda.sh/name", so.name}};
    } else {
      m.source = MetricSourceType::Resource;
      m.name = t.type == KedaTriggerType::Cpu ? "cpu" : "memory";
      m.target = {.type = t.metric_type,
                  .average_utilization = t.utilization,
                  .milli = t.average_value_milli};
    }
    hpa.metrics.push_back(std::move(m));
  }
  return hpa;
}

ScaledObjectController::ScaledObjectController(ScaledObjectSpec spec, SimTime created,
                                               HpaControllerSettings settings)
    : spec_(std::move(spec)),
      created_(created),
      failures_(spec_.triggers.size(), 0),
      hpa_(keda_hpa_spec(spec_), settings) {
  FLEETSIM_ASSERT(!spec_.triggers.empty());
}

std::optional<double> ScaledObjectController::scaler_value(const KedaTrigger& trigger,
                                                           const TriggerReading& reading) const {
  // prometheus_scaler.go ExecutePromQuery: an empty, NaN or infinite result reads as 0 under
  // ignoreNullValues (the default) and as an error without it.
  if (reading.error) return std::nullopt;
  if (!reading.value || !std::isfinite(*reading.value)) {
    if (trigger.ignore_null_values) return 0.0;
    return std::nullopt;
  }
  return *reading.value;
}

KedaPollResult ScaledObjectController::poll(SimTime now, const KedaInputs& inputs) {
  FLEETSIM_ASSERT(inputs.triggers.size() == spec_.triggers.size());
  KedaPollResult out{.desired = inputs.current_replicas};
  // getScaledObjectState: any active trigger activates; cpu and memory triggers have no External
  // metric and so neither activate nor fail. Each prometheus read goes through the fallback, as
  // the adapter's do (getScalerState -> GetMetricsWithFallback): an error counts a failure, a
  // success resets the count, and past failureThreshold the trigger is active without error.
  std::size_t cpu_memory = 0;
  for (std::size_t i = 0; i < spec_.triggers.size(); ++i) {
    const KedaTrigger& t = spec_.triggers[i];
    if (t.type != KedaTriggerType::Prometheus) {
      ++cpu_memory;
      continue;
    }
    std::optional<double> v = scaler_value(t, inputs.triggers[i]);
    bool falling_back = false;
    if (!with_fallback(i, v, inputs, falling_back).available) {
      out.error = true;
      continue;
    }
    if (falling_back || *v > t.activation_threshold) out.active = true;  // strictly greater
  }
  // Only cpu/memory triggers: always active, since nothing could ever activate it from zero.
  if (cpu_memory == spec_.triggers.size() && !out.error) out.active = true;

  // RequestScale.
  const std::int32_t current = inputs.current_replicas;
  const std::int32_t min = spec_.min_replica_count;
  const auto& idle = spec_.idle_replica_count;
  if (out.active) {
    if ((idle && current < min) || current == 0) {
      out.desired = min > 0 ? min : 1;  // scaleFromZeroOrIdle
      out.action = KedaAction::Activated;
      last_active_ = now;
    } else if (out.error) {
      // Some triggers active, some failing: the Ready condition goes Unknown; lastActiveTime is
      // not refreshed.
      out.action = KedaAction::TriggerError;
    } else {
      last_active_ = now;
    }
    return out;
  }
  if (out.error && spec_.fallback && spec_.fallback->replicas != 0) {
    // Leave the replicas to the HPA, which moves to fallback.replicas after the threshold.
    out.action = KedaAction::TriggerError;
  } else if (out.error && !spec_.fallback) {
    out.action = KedaAction::TriggerError;
  } else if ((idle && current > *idle) || (current > 0 && min == 0)) {
    // scaleToZeroOrIdle: only once the cooldown has passed (strictly).
    bool cooled = last_active_ ? *last_active_ + spec_.cooldown_period < now
                               : created_ + spec_.initial_cooldown_period < now;
    if (cooled) {
      out.desired = idle ? *idle : min;
      out.action = KedaAction::Deactivated;
    } else {
      out.action = KedaAction::CoolingDown;
    }
  } else if (current < min && !idle) {
    out.desired = min;
    out.action = KedaAction::RaisedToMin;
  }
  return out;
}

MetricReading ScaledObjectController::with_fallback(std::size_t index, std::optional<double> value,
                                                    const KedaInputs& inputs, bool& falling_back) {
  // GetMetricsWithFallback: the failure count is kept only where a fallback is configured.
  falling_back = false;
  if (value) {
    if (spec_.fallback) failures_[index] = 0;
    return MetricReading{.available = true, .pods = {}, .milli = keda_milli(*value)};
  }
  if (!spec_.fallback) return MetricReading{.available = false};
  std::int32_t& failures = failures_[index];
  failures = failures < std::numeric_limits<std::int32_t>::max() ? failures + 1 : failures;
  if (failures <= spec_.fallback->failure_threshold) return MetricReading{.available = false};

  const KedaTrigger& t = spec_.triggers[index];
  // doFallback: a synthetic value that lands the HPA on R replicas.
  const KedaFallback& fb = *spec_.fallback;
  const double current = inputs.current_replicas;
  double replicas = fb.replicas;
  switch (fb.behavior) {
    case FallbackBehavior::Static:
      break;
    case FallbackBehavior::CurrentReplicas:
      replicas = current;
      break;
    case FallbackBehavior::CurrentReplicasIfHigher:
      replicas = std::max(current, replicas);
      break;
    case FallbackBehavior::CurrentReplicasIfLower:
      replicas = std::min(current, replicas);
      break;
  }
  if (t.metric_type == MetricTargetType::Value) {
    auto ready = std::count_if(inputs.pods.begin(), inputs.pods.end(), [](const HpaPod& p) {
      return p.phase == HpaPodPhase::Running && p.ready == ConditionStatus::True;
    });
    if (ready == 0) return MetricReading{.available = false};  // "readyReplicas is zero"
    replicas /= static_cast<double>(ready);
  }
  // The target as AsApproximateFloat64() of its milli quantity.
  double normalisation = static_cast<double>(keda_milli(t.threshold)) / 1000.0;
  falling_back = true;
  return MetricReading{
      .available = true, .pods = {}, .milli = saturate_to_int64(normalisation * 1000 * replicas)};
}

HpaDecision ScaledObjectController::sync_hpa(SimTime now, const KedaInputs& inputs) {
  FLEETSIM_ASSERT(inputs.triggers.size() == spec_.triggers.size());
  HpaInputs h{.current_replicas = inputs.current_replicas,
              .status_replicas = inputs.status_replicas,
              .pods = inputs.pods,
              .metrics = {}};
  // The adapter (GetScaledObjectMetrics) is asked only when the HPA reads metrics; each of its
  // prometheus reads counts in the fallback as the poll's do. cpu and memory become Resource
  // metrics that the HPA reads from metrics-server itself.
  if (hpa_.reads_metrics(inputs.current_replicas)) {
    for (std::size_t i = 0; i < spec_.triggers.size(); ++i) {
      const TriggerReading& reading = inputs.triggers[i];
      if (spec_.triggers[i].type != KedaTriggerType::Prometheus) {
        h.metrics.push_back(MetricReading{.available = true, .pods = reading.pods, .milli = 0});
        continue;
      }
      bool falling_back = false;
      h.metrics.push_back(
          with_fallback(i, scaler_value(spec_.triggers[i], reading), inputs, falling_back));
    }
  }
  return hpa_.decide(now, h);
}

bool ScaledObjectController::fallback_active() const {
  if (!spec_.fallback) return false;
  return std::any_of(failures_.begin(), failures_.end(),
                     [&](std::int32_t f) { return f > spec_.fallback->failure_threshold; });
}

}  // namespace fleetsim
