#include "fleetsim/scenario/scaled_object_decoder.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "fleetsim/autoscaling/promql.hpp"
#include "fleetsim/scenario/hpa_decoder.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/workload_decoder.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 3> kTriggerTypes{"prometheus", "cpu", "memory"};
constexpr std::array<std::string_view, 4> kFallbackBehaviors{
    "static", "currentReplicas", "currentReplicasIfHigher", "currentReplicasIfLower"};
// KEDA's integer fields are int32 seconds or counts (apis/keda/v1alpha1).
constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
// The ScaledObject default scale target (scaledobject_types.go: ScaleTarget).
constexpr std::string_view kDefaultTargetKind = "Deployment";
constexpr std::string_view kDefaultTargetApiVersion = "apps/v1";

SimDuration seconds_field(const YamlValue& v, std::int64_t min) {
  return seconds(v.as_int(min, kMaxInt32));
}

// Trigger metadata is a map of strings; unquoted YAML numbers are read as their text too.
double metadata_number(const YamlValue& v) {
  std::string text = v.as_string();
  double out = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || ptr != text.data() + text.size() || ec != std::errc{} ||
      !std::isfinite(out)) {
    v.fail(fmt::format("expected a number, got \"{}\"", text.substr(0, 40)));
  }
  return out;
}

bool metadata_bool(const YamlValue& v) {
  // KEDA parses these with strconv.ParseBool.
  std::string text = v.as_string();
  if (text == "true" || text == "True" || text == "TRUE" || text == "t" || text == "T" ||
      text == "1") {
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE" || text == "f" || text == "F" ||
      text == "0") {
    return false;
  }
  v.fail(fmt::format("expected true or false, got \"{}\"", text.substr(0, 40)));
}

void decode_prometheus(const YamlMap& trigger, const YamlMap& meta, KedaTrigger& t,
                       DecodeContext& ctx) {
  t.server_address = meta.require("serverAddress").as_string();
  YamlValue query = meta.require("query");
  t.query = query.as_string();
  t.query_where = query.where();
  if (t.query.empty()) query.fail("the query must not be empty");
  try {
    PromQuery::parse(t.query);  // the world parses it again when it builds the pipeline
  } catch (const PromQlError& e) {
    query.fail(e.what());
  }
  YamlValue threshold = meta.require("threshold");
  t.threshold = metadata_number(threshold);
  // KEDA hands the HPA the threshold in thousandths (GetMetricTargetMili), truncated.
  if (keda_milli(t.threshold) <= 0) threshold.fail("the threshold must be at least 0.001");
  if (auto a = meta.get("activationThreshold")) t.activation_threshold = metadata_number(*a);
  if (auto n = meta.get("ignoreNullValues")) t.ignore_null_values = metadata_bool(*n);
  if (auto type = trigger.get("metricType")) {
    std::string text = type->as_string();
    if (text == "AverageValue") {
      t.metric_type = MetricTargetType::AverageValue;
    } else if (text == "Value") {
      t.metric_type = MetricTargetType::Value;
    } else if (text == "Utilization") {
      type->fail(
          "a prometheus trigger cannot use Utilization (only cpu and memory can); use "
          "AverageValue or Value");
    } else {
      type->fail(fmt::format("unknown metricType \"{}\"; expected AverageValue or Value",
                             text.substr(0, 40)));
    }
  }
  // metricName (deprecated), namespace, customHeaders, queryParameters, unsafeSsl, timeout and
  // the authentication settings do not change what the query returns in a simulation.
  meta.check_unread(ctx.warnings, ctx.kind, api::TriggerMetadata);
}

void decode_cpu_memory(const YamlMap& trigger, const YamlMap& meta, KedaTrigger& t,
                       DecodeContext& ctx) {
  // parseResourceMetadata: trigger.metricType, or the deprecated metadata.type, not both.
  std::optional<YamlValue> type = trigger.get("metricType");
  if (auto old = meta.get("type")) {
    if (type) old->fail("give only one of metricType and the deprecated metadata.type");
    ctx.warn(WarningCode::DeprecatedField, *old,
             "deprecated in favour of the trigger's metricType; read as it");
    type = old;
  }
  if (!type) {
    trigger.value().fail(fmt::format("a {} trigger needs metricType (Utilization or AverageValue)",
                                     to_string(t.type)));
  }
  std::string text = type->as_string();
  YamlValue value = meta.require("value");
  if (text == "Utilization") {
    t.metric_type = MetricTargetType::Utilization;
    std::string v = value.as_string();
    std::int64_t percent = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), percent);
    if (v.empty() || ptr != v.data() + v.size() || ec != std::errc{} || percent <= 0 ||
        percent > kMaxInt32) {
      value.fail(fmt::format("expected a positive whole percentage, got \"{}\"", v.substr(0, 40)));
    }
    t.utilization = static_cast<std::int32_t>(percent);
  } else if (text == "AverageValue") {
    t.metric_type = MetricTargetType::AverageValue;
    t.average_value_milli = value.as_quantity().milli;
    if (t.average_value_milli <= 0) value.fail("the target must be positive");
  } else {
    type->fail(fmt::format("unknown metricType \"{}\"; expected Utilization or AverageValue",
                           text.substr(0, 40)));
  }
  if (auto container = meta.get("containerName")) {
    container->fail(
        "per-container targets are not supported: fleetsim models a pod's usage as "
        "a whole; remove containerName");
  }
  meta.check_unread(ctx.warnings, ctx.kind, api::TriggerMetadata);
}

KedaTrigger decode_trigger(const YamlValue& item, DecodeContext& ctx) {
  YamlMap m(item);
  KedaTrigger t;
  t.where = item.where();
  YamlValue type_value = m.require("type");
  std::string type = type_value.as_string();
  if (type == "prometheus") {
    t.type = KedaTriggerType::Prometheus;
  } else if (type == "cpu") {
    t.type = KedaTriggerType::Cpu;
  } else if (type == "memory") {
    t.type = KedaTriggerType::Memory;
  } else {
    type_value.fail(fmt::format(
        "trigger type \"{}\" is not supported; fleetsim models prometheus, cpu and memory "
        "triggers{}",
        type.substr(0, 40), did_you_mean(type, kTriggerTypes)));
  }
  if (auto name = m.get("name")) t.name = name->as_string();
  YamlMap meta(m.require("metadata"));
  if (t.type == KedaTriggerType::Prometheus) {
    decode_prometheus(m, meta, t, ctx);
  } else {
    decode_cpu_memory(m, meta, t, ctx);
  }
  m.check_unread(ctx.warnings, ctx.kind,
                 api::ScaleTriggers);  // authenticationRef, useCachedMetrics
  return t;
}

KedaFallback decode_fallback(const YamlValue& v, DecodeContext& ctx) {
  YamlMap m(v);
  KedaFallback f;
  f.failure_threshold =
      static_cast<std::int32_t>(m.require("failureThreshold").as_int(0, kMaxInt32));
  f.replicas = static_cast<std::int32_t>(m.require("replicas").as_int(0, kMaxReplicas));
  if (auto b = m.get("behavior")) {
    std::string text = b->as_string();
    if (text == "static") {
      f.behavior = FallbackBehavior::Static;
    } else if (text == "currentReplicas") {
      f.behavior = FallbackBehavior::CurrentReplicas;
    } else if (text == "currentReplicasIfHigher") {
      f.behavior = FallbackBehavior::CurrentReplicasIfHigher;
    } else if (text == "currentReplicasIfLower") {
      f.behavior = FallbackBehavior::CurrentReplicasIfLower;
    } else {
      b->fail(
          fmt::format("unknown fallback behavior \"{}\"; expected static, currentReplicas, "
                      "currentReplicasIfHigher or currentReplicasIfLower{}",
                      text.substr(0, 40), did_you_mean(text, kFallbackBehaviors)));
    }
  }
  m.check_unread(ctx.warnings, ctx.kind, api::Fallback);
  return f;
}

void decode_advanced(const YamlValue& v, ScaledObjectSpec& so, DecodeContext& ctx) {
  YamlMap m(v);
  if (auto modifiers = m.get("scalingModifiers")) {
    modifiers->fail("scalingModifiers (a formula over the triggers) are not supported yet");
  }
  if (auto hpa = m.get("horizontalPodAutoscalerConfig")) {
    YamlMap h(*hpa);
    h.ignore({"name"});  // only names the HPA object
    if (auto behavior = h.get("behavior")) so.hpa_behavior = decode_hpa_behavior(*behavior, ctx);
    h.check_unread(ctx.warnings, ctx.kind, api::HorizontalPodAutoscalerConfig);
  }
  m.check_unread(ctx.warnings, ctx.kind, api::AdvancedConfig);  // restoreToOriginalReplicaCount
}

}  // namespace

ScaledObjectSpec decode_scaled_object(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  ScaledObjectSpec so;
  so.name = meta.name;
  so.namespace_name = meta.namespace_name;
  so.where = meta.where;
  YamlMap spec(manifest.require("spec"));

  YamlMap ref(spec.require("scaleTargetRef"));
  YamlValue target_name = ref.require("name");
  so.scale_target.name = target_name.as_string();
  if (auto p = dns_subdomain_problem(so.scale_target.name)) target_name.fail(*p);
  so.scale_target.kind = kDefaultTargetKind;
  so.scale_target.api_version = kDefaultTargetApiVersion;
  if (auto kind = ref.get("kind")) so.scale_target.kind = kind->as_string();
  if (auto api = ref.get("apiVersion")) so.scale_target.api_version = api->as_string();
  ref.check_unread(ctx.warnings, ctx.kind, api::ScaleTarget);  // envSourceContainerName

  if (auto v = spec.get("pollingInterval")) so.polling_interval = seconds_field(*v, 1);
  if (auto v = spec.get("cooldownPeriod")) so.cooldown_period = seconds_field(*v, 0);
  if (auto v = spec.get("initialCooldownPeriod")) so.initial_cooldown_period = seconds_field(*v, 0);
  if (auto v = spec.get("minReplicaCount")) {
    so.min_replica_count = static_cast<std::int32_t>(v->as_int(0, kMaxReplicas));
  }
  std::optional<YamlValue> max = spec.get("maxReplicaCount");
  if (max) so.max_replica_count = static_cast<std::int32_t>(max->as_int(1, kMaxReplicas));
  if (so.max_replica_count < so.min_replica_count) {
    (max ? *max : spec.value())
        .fail(fmt::format("maxReplicaCount ({}) must be at least minReplicaCount ({})",
                          so.max_replica_count, so.min_replica_count));
  }
  if (auto idle = spec.get("idleReplicaCount")) {
    so.idle_replica_count = static_cast<std::int32_t>(idle->as_int(0, kMaxReplicas));
    if (*so.idle_replica_count >= so.min_replica_count) {
      idle->fail(fmt::format("idleReplicaCount ({}) must be less than minReplicaCount ({})",
                             *so.idle_replica_count, so.min_replica_count));
    }
    if (*so.idle_replica_count != 0) {
      ctx.warn(WarningCode::KedaIdleReplicaCount, *idle,
               "KEDA supports only 0 here: at any other idle count its HPA raises the replicas "
               "to minReplicaCount; simulated as KEDA and the HPA would act");
    }
  }
  if (auto fallback = spec.get("fallback")) so.fallback = decode_fallback(*fallback, ctx);
  if (auto advanced = spec.get("advanced")) decode_advanced(*advanced, so, ctx);

  YamlValue triggers = spec.require("triggers");
  for (const YamlValue& item : triggers.items()) so.triggers.push_back(decode_trigger(item, ctx));
  if (so.triggers.empty()) triggers.fail("a ScaledObject needs at least one trigger");
  if (so.fallback) {
    bool external = false;
    for (const KedaTrigger& t : so.triggers) external |= t.type == KedaTriggerType::Prometheus;
    if (!external) {
      spec.require("fallback")
          .fail("a fallback needs at least one trigger other than cpu or memory (KEDA rejects it)");
    }
  }
  bool only_cpu_memory = true;
  for (const KedaTrigger& t : so.triggers) only_cpu_memory &= t.type != KedaTriggerType::Prometheus;
  if (only_cpu_memory && so.min_replica_count == 0) {
    // KEDA's admission webhook (verifyCPUMemoryScalers): nothing could activate it from zero.
    (spec.contains("minReplicaCount") ? spec.require("minReplicaCount") : triggers)
        .fail(
            "with only cpu and memory triggers minReplicaCount must be at least 1 (KEDA rejects "
            "scale to zero here: nothing could bring the target back from zero)");
  }
  spec.check_unread(ctx.warnings, ctx.kind, api::ScaledObjectSpec);
  return so;
}

}  // namespace fleetsim
