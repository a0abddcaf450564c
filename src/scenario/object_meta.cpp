#include "fleetsim/scenario/object_meta.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "fleetsim/k8s/pod_disruption.hpp"
#include "fleetsim/k8s/workloads.hpp"

namespace fleetsim {

namespace {

// Kubernetes limits (k8s.io/apimachinery/pkg/util/validation): DNS-1123 subdomains and label
// prefixes are at most 253 characters, label names and values at most 63.
constexpr std::size_t kMaxSubdomainLength = 253;
constexpr std::size_t kMaxLabelNameLength = 63;

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?
bool is_label_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxLabelNameLength) return false;
  if (!is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > kMaxSubdomainLength) return false;
  if (!is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) return false;
  for (char c : s)
    if (!is_lower_alnum(c) && c != '-' && c != '.') return false;
  return true;
}

}  // namespace

std::optional<std::string> dns_subdomain_problem(std::string_view text) {
  if (is_dns_subdomain(text)) return std::nullopt;
  return fmt::format(
      "invalid name \"{}\": use at most {} lowercase letters, digits, '-' or '.', starting and "
      "ending with a letter or digit",
      text.substr(0, 80), kMaxSubdomainLength);
}

std::optional<std::string> label_key_problem(std::string_view key) {
  std::string_view name = key;
  if (auto slash = key.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!is_dns_subdomain(prefix)) {
      return fmt::format("invalid key \"{}\": the prefix must be a lowercase DNS subdomain",
                         key.substr(0, 80));
    }
  }
  if (!is_label_name(name)) {
    return fmt::format(
        "invalid key \"{}\": the name must be at most {} letters, digits, '-', '_' or '.', "
        "starting and ending with a letter or digit",
        key.substr(0, 80), kMaxLabelNameLength);
  }
  return std::nullopt;
}

std::optional<std::string> label_value_problem(std::string_view value) {
  if (value.empty() || is_label_name(value)) return std::nullopt;
  return fmt::format(
      "invalid label value \"{}\": use at most {} letters, digits, '-', '_' or '.', starting and "
      "ending with a letter or digit",
      value.substr(0, 80), kMaxLabelNameLength);
}

Labels decode_labels(const YamlValue& map_value) {
  Labels out;
  YamlMap map(map_value);
  for (const auto& e : map.entries()) {
    e.read = true;
    if (auto p = label_key_problem(e.key)) throw ConfigError(e.key_where, e.value.path(), *p);
    std::string value = e.value.is_null() ? std::string() : e.value.as_string();
    if (auto p = label_value_problem(value)) e.value.fail(*p);
    out.emplace(e.key, std::move(value));
  }
  return out;
}

IntOrPercent decode_int_or_percent(const YamlValue& v, std::int64_t max_percent) {
  std::string text = v.as_string();
  if (!text.empty() && text.back() == '%') {
    std::int64_t n = -1;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, n);
    if (ec != std::errc() || p != text.data() + text.size() - 1 || n < 0 || n > max_percent)
      v.fail(max_percent == 100
                 ? fmt::format("\"{}\" is not a percentage from 0% to 100%", text.substr(0, 40))
                 : fmt::format("\"{}\" is not a whole percentage from 0% to {}%",
                               text.substr(0, 40), max_percent));
    return {.value = n, .percent = true};
  }
  return {.value = v.as_int(0, std::numeric_limits<std::int32_t>::max())};
}

ObjectMeta decode_object_meta(const YamlMap& owner, DecodeContext& ctx, NameRule rule) {
  ObjectMeta meta;
  meta.where = owner.value().where();
  std::optional<YamlValue> metadata =
      rule == NameRule::Required ? std::optional(owner.require("metadata")) : owner.get("metadata");
  if (!metadata) return meta;
  YamlMap m(*metadata);
  meta.where = metadata->where();
  m.ignore(
      {"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink"});

  std::optional<YamlValue> name =
      rule == NameRule::Required ? std::optional(m.require("name")) : m.get("name");
  if (name) {
    meta.name = name->as_string();
    if (auto p = dns_subdomain_problem(meta.name)) name->fail(*p);
    meta.where = name->where();
  }
  if (auto ns = m.get("namespace")) {
    meta.namespace_name = ns->as_string();
    if (auto p = dns_subdomain_problem(meta.namespace_name)) ns->fail(*p);
  }
  if (auto labels = m.get("labels")) meta.labels = decode_labels(*labels);
  if (auto annotations = m.get("annotations")) {
    YamlMap a(*annotations);
    for (const auto& e : a.entries()) {
      e.read = true;
      if (auto p = label_key_problem(e.key)) throw ConfigError(e.key_where, e.value.path(), *p);
      std::string value = e.value.is_null() ? std::string() : e.value.as_string();
      if (e.key == kDoNotDisruptAnnotation) {
        meta.do_not_disrupt = parse_do_not_disrupt(value);
        if (meta.do_not_disrupt && *meta.do_not_disrupt != kForever &&
            !ctx.karpenter.do_not_disrupt_durations()) {
          ctx.warn(WarningCode::DoNotDisruptIgnored, e.value,
                   fmt::format("Karpenter {} honours only \"true\" (a duration needs v1.12); "
                               "\"{}\" is ignored",
                               ctx.karpenter.to_string(), value.substr(0, 40)));
          meta.do_not_disrupt.reset();
        }
        // Karpenter ignores an invalid value (with an event): so does fleetsim, with a warning.
        if (!meta.do_not_disrupt)
          ctx.warn(WarningCode::DoNotDisruptIgnored, e.value,
                   fmt::format("\"{}\" is neither \"true\" nor a positive duration; "
                               "Karpenter ignores it",
                               value.substr(0, 40)));
      } else if (e.key == kDurationAnnotation) {
        // At least a second: a Deployment's pods with a microsecond run time churn without end.
        SimDuration d = e.value.as_duration();
        if (d < seconds(1)) e.value.fail("the run time must be at least 1s");
        meta.run_time = d;
      } else if (e.key == kCheckpointIntervalAnnotation) {
        // At least a second, as the run time: a microsecond interval is a unit mistake.
        SimDuration d = e.value.as_duration();
        if (d < seconds(1)) e.value.fail("the checkpoint interval must be at least 1s");
        meta.checkpoint_interval = d;
      } else if (e.key == kRestartOverheadAnnotation) {
        SimDuration d = e.value.as_duration();
        if (d < SimDuration{0}) e.value.fail("the restart overhead must not be negative");
        meta.restart_overhead = d;
      }
      meta.annotations.emplace(e.key, std::move(value));
    }
  }
  m.check_unread(ctx.warnings, ctx.kind, api::ObjectMeta);
  return meta;
}

}  // namespace fleetsim
