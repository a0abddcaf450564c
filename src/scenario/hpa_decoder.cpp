#include "fleetsim/scenario/hpa_decoder.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/workload_decoder.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 5> kMetricTypes{"Resource", "Pods", "Object", "External",
                                                       "ContainerResource"};
// The member of a MetricSpec that goes with each type (autoscaling/v2 MetricSpec).
constexpr std::array<std::string_view, 5> kMetricMembers{"resource", "pods", "object", "external",
                                                         "containerResource"};
// The upstream type of each member above (ContainerResource is refused before it is read).
constexpr std::array<const ApiType*, 4> kMetricSourceTypes{
    &api::ResourceMetricSource, &api::PodsMetricSource, &api::ObjectMetricSource,
    &api::ExternalMetricSource};
constexpr std::array<std::string_view, 3> kTargetTypes{"Utilization", "AverageValue", "Value"};
constexpr std::array<std::string_view, 2> kPolicyTypes{"Pods", "Percent"};
constexpr std::array<std::string_view, 3> kSelectPolicies{"Max", "Min", "Disabled"};
// metrics-server reports these two resources only.
constexpr std::array<std::string_view, 2> kResourceNames{"cpu", "memory"};

std::int32_t as_int32(const YamlValue& v, std::int64_t min, std::int64_t max) {
  return static_cast<std::int32_t>(v.as_int(min, max));
}

// A metric's `selector`: matchLabels are kept; matchExpressions are read past with a warning.
std::vector<std::pair<std::string, std::string>> decode_metric_selector(const YamlValue& v,
                                                                        DecodeContext& ctx) {
  YamlMap m(v);
  std::vector<std::pair<std::string, std::string>> out;
  if (auto labels = m.get("matchLabels")) {
    for (const auto& [key, value] : decode_labels(*labels)) out.emplace_back(key, value);
  }
  m.check_unread(ctx.warnings, ctx.kind, api::LabelSelector);
  return out;
}

// A MetricIdentifier: {name, selector}.
std::string decode_metric_identifier(const YamlValue& v, MetricSpec& out, DecodeContext& ctx) {
  YamlMap m(v);
  YamlValue name = m.require("name");
  out.name = name.as_string();
  out.name_where = name.where();
  if (out.name.empty()) name.fail("the metric name must not be empty");
  if (auto selector = m.get("selector")) out.selector = decode_metric_selector(*selector, ctx);
  m.check_unread(ctx.warnings, ctx.kind, api::MetricIdentifier);
  return out.name;
}

// A MetricTarget, checked against the target types its source allows.
MetricTarget decode_target(const YamlValue& v, MetricSourceType source, DecodeContext& ctx) {
  YamlMap m(v);
  YamlValue type_value = m.require("type");
  std::string type = type_value.as_string();
  MetricTarget t;
  if (type == "Utilization") {
    t.type = MetricTargetType::Utilization;
  } else if (type == "AverageValue") {
    t.type = MetricTargetType::AverageValue;
  } else if (type == "Value") {
    t.type = MetricTargetType::Value;
  } else {
    type_value.fail(
        fmt::format("unknown target type \"{}\"; expected Utilization, AverageValue "
                    "or Value{}",
                    type.substr(0, 40), did_you_mean(type, kTargetTypes)));
  }
  bool allowed = false;
  switch (source) {
    case MetricSourceType::Resource:
      allowed = t.type != MetricTargetType::Value;
      break;
    case MetricSourceType::Pods:
      allowed = t.type == MetricTargetType::AverageValue;
      break;
    case MetricSourceType::Object:
    case MetricSourceType::External:
      allowed = t.type != MetricTargetType::Utilization;
      break;
  }
  if (!allowed) {
    type_value.fail(fmt::format("a {} metric cannot have a {} target", to_string(source), type));
  }
  // Exactly the member that goes with the type (the API server's validation).
  struct Member {
    std::string_view key;
    MetricTargetType type;
  };
  constexpr std::array<Member, 3> kMembers{{{"averageUtilization", MetricTargetType::Utilization},
                                            {"averageValue", MetricTargetType::AverageValue},
                                            {"value", MetricTargetType::Value}}};
  for (const Member& member : kMembers) {
    if (member.type == t.type) continue;
    if (auto extra = m.get(member.key)) {
      extra->fail(fmt::format("must not be set for a {} target", type));
    }
  }
  switch (t.type) {
    case MetricTargetType::Utilization: {
      YamlValue u = m.require("averageUtilization");
      t.average_utilization = as_int32(u, 1, std::numeric_limits<std::int32_t>::max());
      break;
    }
    case MetricTargetType::AverageValue:
    case MetricTargetType::Value: {
      YamlValue q = m.require(t.type == MetricTargetType::Value ? "value" : "averageValue");
      t.milli = q.as_quantity().milli;
      if (t.milli <= 0) q.fail("the target must be positive");
      break;
    }
  }
  m.check_unread(ctx.warnings, ctx.kind, api::MetricTarget);
  return t;
}

MetricSpec decode_metric(const YamlValue& item, DecodeContext& ctx) {
  YamlMap m(item);
  YamlValue type_value = m.require("type");
  std::string type = type_value.as_string();
  std::size_t index = kMetricTypes.size();
  for (std::size_t i = 0; i < kMetricTypes.size(); ++i)
    if (kMetricTypes[i] == type) index = i;
  if (index == kMetricTypes.size()) {
    type_value.fail(
        fmt::format("unknown metric type \"{}\"; expected Resource, Pods, Object or External{}",
                    type.substr(0, 40), did_you_mean(type, kMetricTypes)));
  }
  if (type == "ContainerResource") {
    type_value.fail(
        "ContainerResource metrics are not supported: fleetsim models a pod's usage as a whole; "
        "use a Resource metric");
  }
  for (std::size_t i = 0; i < kMetricMembers.size(); ++i) {
    if (i == index) continue;
    if (auto other = m.get(kMetricMembers[i])) {
      other->fail(fmt::format("must not be set for a metric of type {}", type));
    }
  }
  YamlValue source_value = m.require(kMetricMembers[index]);
  YamlMap source(source_value);
  MetricSpec out;
  out.source = static_cast<MetricSourceType>(index);
  switch (out.source) {
    case MetricSourceType::Resource: {
      YamlValue name = source.require("name");
      out.name = name.as_string();
      if (out.name != "cpu" && out.name != "memory") {
        name.fail(
            fmt::format("resource \"{}\" has no metrics: metrics-server reports cpu and "
                        "memory{}",
                        out.name.substr(0, 40), did_you_mean(out.name, kResourceNames)));
      }
      break;
    }
    case MetricSourceType::Pods:
    case MetricSourceType::External:
      decode_metric_identifier(source.require("metric"), out, ctx);
      break;
    case MetricSourceType::Object: {
      decode_metric_identifier(source.require("metric"), out, ctx);
      YamlMap ref(source.require("describedObject"));
      out.described_object.kind = ref.require("kind").as_string();
      out.described_object.name = ref.require("name").as_string();
      if (auto api = ref.get("apiVersion")) out.described_object.api_version = api->as_string();
      ref.check_unread(ctx.warnings, ctx.kind, api::CrossVersionObjectReference);
      break;
    }
  }
  out.target = decode_target(source.require("target"), out.source, ctx);
  source.check_unread(ctx.warnings, ctx.kind, *kMetricSourceTypes[index]);
  m.check_unread(ctx.warnings, ctx.kind, api::MetricSpec);
  return out;
}

ScalingRules decode_rules(const YamlValue& v, DecodeContext& ctx) {
  YamlMap m(v);
  ScalingRules r;
  if (auto w = m.get("stabilizationWindowSeconds")) {
    r.stabilization_window_seconds = as_int32(*w, 0, kHpaMaxStabilizationWindowSeconds);
  }
  if (auto s = m.get("selectPolicy")) {
    std::string text = s->as_string();
    if (text == "Max") {
      r.select_policy = SelectPolicy::Max;
    } else if (text == "Min") {
      r.select_policy = SelectPolicy::Min;
    } else if (text == "Disabled") {
      r.select_policy = SelectPolicy::Disabled;
    } else {
      s->fail(fmt::format("unknown selectPolicy \"{}\"; expected Max, Min or Disabled{}",
                          text.substr(0, 40), did_you_mean(text, kSelectPolicies)));
    }
  }
  if (auto list = m.get("policies")) {
    std::vector<ScalingPolicy> policies;
    std::vector<YamlValue> items = list->items();
    if (items.empty()) list->fail("at least one policy is required when policies is given");
    for (const YamlValue& item : items) {
      YamlMap p(item);
      ScalingPolicy policy;
      YamlValue type = p.require("type");
      std::string text = type.as_string();
      if (text == "Pods") {
        policy.type = ScalingPolicyType::Pods;
      } else if (text == "Percent") {
        policy.type = ScalingPolicyType::Percent;
      } else {
        type.fail(fmt::format("unknown policy type \"{}\"; expected Pods or Percent{}",
                              text.substr(0, 40), did_you_mean(text, kPolicyTypes)));
      }
      policy.value = as_int32(p.require("value"), 1, std::numeric_limits<std::int32_t>::max());
      policy.period_seconds = as_int32(p.require("periodSeconds"), 1, kHpaMaxPolicyPeriodSeconds);
      p.check_unread(ctx.warnings, ctx.kind, api::HPAScalingPolicy);
      policies.push_back(policy);
    }
    r.policies = std::move(policies);
  }
  if (auto t = m.get("tolerance")) {
    // A quantity such as "0.05" or "50m" (KEP-4951, HPAConfigurableTolerance).
    r.tolerance = static_cast<double>(t->as_quantity().milli) / 1000.0;
  }
  m.check_unread(ctx.warnings, ctx.kind, api::HPAScalingRules);
  return r;
}

}  // namespace

HpaBehavior decode_hpa_behavior(const YamlValue& value, DecodeContext& ctx) {
  YamlMap m(value);
  HpaBehavior b;
  if (auto up = m.get("scaleUp")) b.scale_up = decode_rules(*up, ctx);
  if (auto down = m.get("scaleDown")) b.scale_down = decode_rules(*down, ctx);
  m.check_unread(ctx.warnings, ctx.kind, api::HorizontalPodAutoscalerBehavior);
  return b;
}

HorizontalPodAutoscalerSpec decode_hpa(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  HorizontalPodAutoscalerSpec hpa;
  hpa.name = meta.name;
  hpa.namespace_name = meta.namespace_name;
  hpa.where = meta.where;
  YamlMap spec(manifest.require("spec"));

  YamlMap ref(spec.require("scaleTargetRef"));
  hpa.scale_target.kind = ref.require("kind").as_string();
  YamlValue target_name = ref.require("name");
  hpa.scale_target.name = target_name.as_string();
  if (auto p = dns_subdomain_problem(hpa.scale_target.name)) target_name.fail(*p);
  if (auto api = ref.get("apiVersion")) hpa.scale_target.api_version = api->as_string();
  ref.check_unread(ctx.warnings, ctx.kind, api::CrossVersionObjectReference);

  if (auto min = spec.get("minReplicas")) {
    if (min->is_scalar() && min->node().Scalar() == "0") {
      min->fail(
          "minReplicas 0 needs the alpha feature gate HPAScaleToZero, which fleetsim does "
          "not model; use 1, or a KEDA ScaledObject to scale to zero");
    }
    hpa.min_replicas = as_int32(*min, 1, kMaxReplicas);
  }
  YamlValue max = spec.require("maxReplicas");
  hpa.max_replicas = as_int32(max, 1, kMaxReplicas);
  if (hpa.max_replicas < hpa.min_replicas) {
    max.fail(fmt::format("maxReplicas ({}) must be at least minReplicas ({})", hpa.max_replicas,
                         hpa.min_replicas));
  }
  if (auto metrics = spec.get("metrics")) {
    for (const YamlValue& item : metrics->items()) hpa.metrics.push_back(decode_metric(item, ctx));
  }
  // `behavior: {}` selects the behavior path with every default; `behavior: null` is nil.
  if (auto behavior = spec.get("behavior")) hpa.behavior = decode_hpa_behavior(*behavior, ctx);
  spec.check_unread(ctx.warnings, ctx.kind, api::HorizontalPodAutoscalerSpec);
  return hpa;
}

}  // namespace fleetsim
