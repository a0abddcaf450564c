#include "fleetsim/scenario/nodepool_decoder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "fleetsim/disruption/cron_schedule.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/requirement_decoder.hpp"
#include "fleetsim/scenario/resource_decoder.hpp"

namespace fleetsim {

namespace {

// The only node class fleetsim models (aws:pkg/apis/v1 EC2NodeClass).
constexpr std::string_view kNodeClassGroup = "karpenter.k8s.aws";
constexpr std::string_view kNodeClassKind = "EC2NodeClass";
constexpr std::string_view kAutoModeNodeClassGroup = "eks.amazonaws.com";
constexpr std::string_view kAutoModeNodeClassKind = "NodeClass";
// Karpenter's default budget when a NodePool names none (core:pkg/apis/v1/nodepool.go).
constexpr std::string_view kDefaultBudgetNodes = "10%";

constexpr std::array<std::string_view, 3> kDisruptionReasons{"Underutilized", "Empty", "Drifted"};

// Whether `text` is one or more whole numbers each followed by one of `units` ("1h30m"), as the
// CRD's pattern ^([0-9]+(s|m|h))+$ has it: no "500ms", no "1.5h".
bool whole_units(std::string_view text, std::string_view units) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits || i == text.size() || units.find(text[i]) == std::string_view::npos)
      return false;
    ++i;
  }
  return !text.empty();
}

// A duration as Karpenter's CRD accepts it (core:pkg/apis/v1/nodepool.go): whole seconds,
// minutes and hours, and the word Never where `never` allows it (expireAfter, consolidateAfter).
std::optional<SimDuration> karpenter_duration(const YamlValue& v, bool never) {
  const std::string text = v.as_string();
  if (never && text == "Never") return std::nullopt;
  if (!whole_units(text, "smh")) {
    v.fail(
        fmt::format("\"{}\" is not a duration Karpenter accepts: whole hours, minutes and "
                    "seconds (90s, 5m, 1h30m){} (its CRD's pattern {})",
                    text.substr(0, 40), never ? " or Never" : "",
                    never ? "^(([0-9]+(s|m|h))+|Never)$" : "^([0-9]+(s|m|h))+$"));
  }
  return v.as_duration();
}

// A budget's duration: hours and minutes, with an optional trailing 0s (Go's "1h30m0s"), as
// the CRD's pattern ^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$ has it.
bool budget_duration_text(std::string_view text) {
  if (text.ends_with("0s")) text.remove_suffix(2);
  const std::size_t h = text.find('h');
  if (h != std::string_view::npos && h + 1 < text.size())
    return whole_units(text.substr(0, h + 1), "h") && whole_units(text.substr(h + 1), "m");
  return whole_units(text, "hm") && text.find_first_of("hm") == text.size() - 1;
}

DisruptionBudget decode_budget(const YamlValue& item, DecodeContext& ctx) {
  YamlMap m(item);
  DisruptionBudget b;
  std::optional<YamlValue> nodes = m.get("nodes");
  std::string text = nodes ? nodes->as_string() : std::string(kDefaultBudgetNodes);
  // Karpenter's CRD pattern: ^((100|[0-9]{1,2})%|[0-9]+)$
  bool percent = !text.empty() && text.back() == '%';
  std::string_view digits(text);
  if (percent) digits.remove_suffix(1);
  int n = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || n < 0 ||
      (percent && n > 100)) {
    nodes->fail(
        fmt::format("invalid budget \"{}\"; expected a node count such as \"5\" or a "
                    "percentage from \"0%\" to \"100%\"",
                    text.substr(0, 40)));
  }
  b.percent = percent;
  b.nodes = n;
  if (auto reasons = m.get("reasons")) {
    for (const YamlValue& r : reasons->items()) {
      const std::string reason = r.as_string();
      const std::optional<DisruptionReason> parsed = parse_disruption_reason(reason);
      if (!parsed) {
        r.fail(
            fmt::format("unknown disruption reason \"{}\"; expected Underutilized, Empty or "
                        "Drifted{}",
                        reason.substr(0, 40), did_you_mean(reason, kDisruptionReasons)));
      }
      b.reasons.push_back(*parsed);
    }
  }
  std::optional<YamlValue> schedule = m.get("schedule");
  std::optional<YamlValue> duration = m.get("duration");
  if (schedule) {
    b.schedule = schedule->as_string();
    // The parser the run uses: a schedule it would refuse must not load (the budget would be
    // dropped without a word).
    std::string why;
    if (!CronSchedule::parse(b.schedule, &why))
      schedule->fail(fmt::format("invalid schedule \"{}\": {}", b.schedule.substr(0, 60), why));
  }
  if (duration) {
    if (!budget_duration_text(duration->as_string())) {
      duration->fail(
          fmt::format("\"{}\" is not a budget duration Karpenter accepts: hours and "
                      "minutes (30m, 2h, 1h30m), as its CRD's pattern "
                      "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$ has it",
                      duration->as_string().substr(0, 40)));
    }
    b.duration = duration->as_duration();
    if (*b.duration <= SimDuration{0}) duration->fail("the duration must be positive");
  }
  // Karpenter's CRD: "'schedule' must be set with 'duration'".
  if (schedule && !duration) item.fail("a budget with a schedule needs a duration");
  if (duration && !schedule) item.fail("a budget with a duration needs a schedule");
  m.check_unread(ctx.warnings, ctx.kind, api::Budget);
  return b;
}

NodePoolDisruption decode_disruption(const YamlValue& value, DecodeContext& ctx) {
  NodePoolDisruption d;
  YamlMap m(value);
  if (auto policy = m.get("consolidationPolicy")) {
    std::string text = policy->as_string();
    if (text == "WhenEmpty") {
      d.policy = ConsolidationPolicy::WhenEmpty;
    } else if (text == "WhenEmptyOrUnderutilized") {
      d.policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
    } else if (text == "Balanced") {
      // Karpenter's CRD has no Balanced before v1.14: the API server refuses it.
      if (!ctx.karpenter.has_balanced())
        policy->fail(
            fmt::format("consolidationPolicy Balanced needs Karpenter v1.14 or later "
                        "(karpenter.version is {})",
                        ctx.karpenter.to_string()));
      d.policy = ConsolidationPolicy::Balanced;
    } else {
      constexpr std::array<std::string_view, 3> known{"WhenEmpty", "WhenEmptyOrUnderutilized",
                                                      "Balanced"};
      const std::string renamed =
          text == "WhenUnderutilized"
              ? " (karpenter.sh/v1 renamed v1beta1's WhenUnderutilized WhenEmptyOrUnderutilized)"
              : did_you_mean(text, known);
      policy->fail(fmt::format("unknown consolidationPolicy \"{}\"; expected {}{}",
                               text.substr(0, 40), fmt::join(known, ", "), renamed));
    }
  }
  if (auto after = m.get("consolidateAfter"))
    d.consolidate_after = karpenter_duration(*after, true);
  if (auto budgets = m.get("budgets")) {
    std::vector<YamlValue> items = budgets->items();
    if (items.size() > kMaxDisruptionBudgets) {
      budgets->fail(fmt::format("at most {} budgets are allowed, found {}", kMaxDisruptionBudgets,
                                items.size()));
    }
    d.budgets.clear();  // an explicit list replaces the default 10% budget
    for (const YamlValue& item : items) d.budgets.push_back(decode_budget(item, ctx));
  }
  m.check_unread(ctx.warnings, ctx.kind, api::Disruption);
  return d;
}

void decode_node_class_ref(const YamlValue& value, NodePool& pool, DecodeContext& ctx) {
  YamlMap m(value);
  YamlValue name = m.require("name");
  pool.node_class = name.as_string();
  pool.node_class_where = name.where();
  if (auto p = dns_subdomain_problem(pool.node_class)) name.fail(*p);
  YamlValue kind = m.require("kind");
  // EKS Auto Mode's NodeClass (group eks.amazonaws.com), or Karpenter AWS's EC2NodeClass.
  pool.auto_mode_node_class = kind.as_string() == kAutoModeNodeClassKind;
  if (kind.as_string() != kNodeClassKind && !pool.auto_mode_node_class) {
    kind.fail(fmt::format("fleetsim models {} and EKS Auto Mode's {} node classes", kNodeClassKind,
                          kAutoModeNodeClassKind));
  }
  YamlValue group = m.require("group");
  const std::string_view expected =
      pool.auto_mode_node_class ? kAutoModeNodeClassGroup : kNodeClassGroup;
  if (group.as_string() != expected) {
    group.fail(fmt::format("a {} is in the {} group", kind.as_string(), expected));
  }
  m.check_unread(ctx.warnings, ctx.kind, api::NodeClassReference);
}

Labels decode_pool_labels(const YamlValue& value) {
  Labels labels = decode_labels(value);
  YamlMap m(value);
  for (const auto& e : m.entries()) {
    if (auto p = nodepool_label_restriction(e.key))
      throw ConfigError(e.key_where, e.value.path(), *p);
  }
  return labels;
}

void decode_template(const YamlValue& value, NodePool& pool, DecodeContext& ctx) {
  YamlMap t(value);
  if (auto metadata = t.get("metadata")) {
    YamlMap md(*metadata);
    if (auto labels = md.get("labels")) pool.labels = decode_pool_labels(*labels);
    if (auto annotations = md.get("annotations")) pool.annotations = decode_labels(*annotations);
    md.check_unread(ctx.warnings, ctx.kind, api::NodeClaimTemplateObjectMeta);
  }
  YamlMap spec(t.require("spec"));
  decode_node_class_ref(spec.require("nodeClassRef"), pool, ctx);
  if (auto reqs = spec.get("requirements")) {
    decode_requirements(*reqs, RequirementSource::NodePool, ctx, pool.requirements);
  }
  if (auto taints = spec.get("taints")) pool.taints = decode_taints(*taints, ctx);
  if (auto taints = spec.get("startupTaints")) pool.startup_taints = decode_taints(*taints, ctx);
  if (auto expire = spec.get("expireAfter")) {
    pool.expire_after = karpenter_duration(*expire, true);
    pool.expire_after_given = true;
  }
  if (auto grace = spec.get("terminationGracePeriod")) {
    pool.termination_grace_period = *karpenter_duration(*grace, false);
  }
  spec.check_unread(ctx.warnings, ctx.kind, api::NodeClaimTemplateSpec);
  t.check_unread(ctx.warnings, ctx.kind, api::NodeClaimTemplate);
}

}  // namespace

std::vector<Taint> decode_taints(const YamlValue& list, DecodeContext& ctx) {
  std::vector<Taint> out;
  for (const YamlValue& item : list.items()) {
    YamlMap m(item);
    Taint t;
    YamlValue key = m.require("key");
    t.key = key.as_string();
    if (auto p = label_key_problem(t.key)) key.fail(*p);
    if (auto value = m.get("value")) {
      t.value = value->as_string();
      if (auto p = label_value_problem(t.value)) value->fail(*p);
    }
    YamlValue effect = m.require("effect");
    std::string effect_text = effect.as_string();
    auto parsed = parse_taint_effect(effect_text);
    if (!parsed) {
      effect.fail(
          fmt::format("unknown taint effect \"{}\"; expected NoSchedule, PreferNoSchedule or "
                      "NoExecute{}",
                      effect_text.substr(0, 40), did_you_mean(effect_text, kTaintEffects)));
    }
    t.effect = *parsed;
    m.ignore({"timeAdded"});  // set by the API server
    m.check_unread(ctx.warnings, ctx.kind, api::Taint);
    out.push_back(std::move(t));
  }
  return out;
}

NodePool decode_nodepool(const YamlMap& manifest, DecodeContext& ctx) {
  NodePool pool;
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  pool.name = meta.name;
  pool.where = meta.where;
  pool.disruption.consolidate_after = SimDuration{0};  // Karpenter v1's default

  YamlMap spec(manifest.require("spec"));
  if (auto weight = spec.get("weight")) {
    pool.weight = static_cast<int>(weight->as_int(kMinNodePoolWeight, kMaxNodePoolWeight));
  }
  decode_template(spec.require("template"), pool, ctx);
  if (auto limits = spec.get("limits")) {
    ResourceList list = decode_resource_list(*limits, ctx, ResourceListUse::NodePoolLimits);
    if (!list.set_mask.is_zero()) {
      pool.limits.resources = list.amounts;
      pool.limits.set_mask = list.set_mask;
    }
    pool.limits.nodes = list.nodes;
  }
  if (auto disruption = spec.get("disruption")) {
    pool.disruption = decode_disruption(*disruption, ctx);
  }
  spec.check_unread(ctx.warnings, ctx.kind, api::NodePoolSpec);
  return pool;
}

}  // namespace fleetsim
