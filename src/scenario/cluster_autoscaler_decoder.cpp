#include "fleetsim/scenario/cluster_autoscaler_decoder.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <string>

#include "fleetsim/scenario/cluster_autoscaler_flags.hpp"
#include "fleetsim/scenario/embedded_yaml.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

namespace {

// A scan interval beyond 10 minutes, or any delay beyond a week, is a unit mistake.
constexpr SimDuration kMaxScanInterval = minutes(10);
constexpr SimDuration kMaxDelay = hours(7 * 24);
constexpr std::int64_t kMaxNodesTotal = 1'000'000;
// --node-info-cache-expire-time's default, ten years, is "for ever": nothing above it differs.
constexpr SimDuration kMaxNodeInfoCacheExpireTime = hours(87600);

constexpr std::array<std::string_view, 7> kExpanderNames{
    "random", "most-pods", "least-waste", "least-nodes", "price", "priority", "grpc"};

std::optional<Expander> expander_named(std::string_view name) {
  if (name == "random") return Expander::Random;
  if (name == "most-pods") return Expander::MostPods;
  if (name == "least-waste") return Expander::LeastWaste;
  if (name == "least-nodes") return Expander::LeastNodes;
  if (name == "priority") return Expander::Priority;
  return std::nullopt;
}

// --expander: a comma list (split without trimming, as upstream's flag is), each name once,
// random only last (expander/factory/expander_factory.go).
std::vector<Expander> decode_expanders(const YamlValue& v) {
  std::vector<std::string> names;
  if (v.is_seq()) {
    for (const YamlValue& item : v.items()) names.push_back(item.as_string());
  } else {
    const std::string text = v.as_string();
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text.find(',', start);
      names.push_back(text.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  std::vector<Expander> out;
  for (const std::string& name : names) {
    if (name == "price") {
      v.fail(
          "the price expander is not available on AWS: the Cluster Autoscaler's AWS provider "
          "has no pricing model and exits at start-up (expander/factory, Pricing() returns "
          "ErrNotImplemented)");
    }
    if (name == "grpc") v.fail("the grpc expander calls an external service; not modelled");
    const std::optional<Expander> e = expander_named(name);
    if (!e) {
      v.fail(
          fmt::format("unknown expander \"{}\"; expected random, most-pods, least-waste, "
                      "least-nodes or priority (comma-separated, no spaces){}",
                      name.substr(0, 40), did_you_mean(name, kExpanderNames)));
    }
    if (std::find(out.begin(), out.end(), *e) != out.end())
      v.fail(fmt::format("expander \"{}\" is listed twice", name));
    if (!out.empty() && out.back() == Expander::Random)
      v.fail("random picks one option: no expander may follow it");
    out.push_back(*e);
  }
  return out;
}

SimDuration delay(const YamlValue& v, SimDuration max, SimDuration min = SimDuration{0}) {
  const SimDuration d = v.as_duration();
  if (d < min || d > max)
    v.fail(fmt::format("must be from {} to {}", format_duration(min), format_duration(max)));
  return d;
}

// The flag as upstream spells it: max_nodes_total is --max-nodes-total.
std::string dashed(std::string_view key) {
  std::string out(key);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

double threshold(const YamlValue& v) {
  const double t = v.as_double();
  if (t < 0 || t > 1) v.fail("a utilization threshold is from 0 to 1");
  return t;
}

}  // namespace

namespace {

// The name the priorities text is parsed under: errors located there are moved into the file.
constexpr std::string_view kPrioritiesText = "(priorities)";

// The map from priority to regular expressions, with errors at its nodes.
std::vector<ExpanderPriority> decode_priority_map(const YamlValue& map) {
  std::map<int, std::vector<std::string>, std::greater<>> by_priority;
  YamlMap m(map);
  for (const auto& e : m.entries()) {
    int priority = 0;
    try {
      std::size_t used = 0;
      priority = std::stoi(e.key, &used);
      if (used != e.key.size()) throw std::invalid_argument(e.key);
    } catch (const std::exception&) {
      throw ConfigError(e.key_where, map.path(),
                        fmt::format("priority \"{}\" is not a whole number", e.key.substr(0, 40)));
    }
    for (const YamlValue& item : e.value.items()) {
      const std::string pattern = item.as_string();
      const RE2 check(pattern, RE2::Quiet);
      if (!check.ok()) {
        item.fail(fmt::format("\"{}\" is not a regular expression: {}", pattern.substr(0, 60),
                              check.error()));
      }
      by_priority[priority].push_back(pattern);
    }
  }
  std::vector<ExpanderPriority> out;
  for (auto& [priority, patterns] : by_priority)
    out.push_back({.priority = priority, .patterns = std::move(patterns)});
  return out;
}

}  // namespace

std::vector<ExpanderPriority> decode_expander_priorities(const YamlValue& value) {
  if (!value.is_scalar()) return decode_priority_map(value);
  // The ConfigMap holds the map as text: parse it, and report problems at their line in it.
  std::optional<YamlDocuments> parsed;
  try {
    parsed = parse_yaml(value.as_string(), std::string(kPrioritiesText));
  } catch (const InputError& e) {
    throw ConfigError(text_origin(value).map(e.where()), value.path(),
                      fmt::format("priorities do not parse as YAML: {}", e.message()));
  }
  if (parsed->documents.size() != 1 || !parsed->documents[0].IsMap())
    value.fail("priorities must be a map from a priority to a list of regular expressions");
  try {
    return decode_priority_map(YamlValue(parsed->documents[0], parsed->file, value.path()));
  } catch (const InputError& e) {
    if (e.where().file != kPrioritiesText) throw;
    throw ConfigError(text_origin(value).map(e.where()), e.field(), e.message());
  }
}

ClusterAutoscalerSettings decode_cluster_autoscaler(const YamlValue& value, WarningLog& warnings) {
  ClusterAutoscalerSettings s;
  YamlMap m(value);
  // A real flag fleetsim does not model is named, not refused: the user copied it from a
  // deployment. A typo of a modelled one still fails below, with its "did you mean".
  for (std::string_view flag : unmodelled_cluster_autoscaler_flags()) {
    if (auto v = m.get(flag)) {
      warnings.add(WarningCode::UnmodelledAutoscalerFlag, v->where(), v->path(),
                   fmt::format("--{} is not modelled; ignored", dashed(flag)));
    }
  }
  if (auto v = m.get("namespace")) {
    s.config_namespace = v->as_string();
    if (s.config_namespace.empty()) v->fail("must not be empty");
  }
  if (auto v = m.get("scan_interval")) {
    s.scan_interval = v->as_duration();
    if (s.scan_interval < seconds(1) || s.scan_interval > kMaxScanInterval)
      v->fail(fmt::format("must be from 1s to {}", format_duration(kMaxScanInterval)));
  }
  if (auto v = m.get("expander")) s.expanders = decode_expanders(*v);
  if (auto v = m.get("priorities")) s.priorities = decode_expander_priorities(*v);
  if (auto v = m.get("max_nodes_total")) s.max_nodes_total = v->as_int(0, kMaxNodesTotal);
  // 0s would time out every scale-up at once and back the group off: no node ever comes.
  if (auto v = m.get("max_node_provision_time"))
    s.max_node_provision_time = delay(*v, kMaxDelay, seconds(1));
  if (auto v = m.get("max_node_startup_time")) s.max_node_startup_time = delay(*v, kMaxDelay);
  if (auto v = m.get("ok_total_unready_count")) s.ok_total_unready_count = v->as_int(0, 1'000'000);
  if (auto v = m.get("max_total_unready_percentage")) {
    s.max_total_unready_percentage = v->as_double();
    if (!(s.max_total_unready_percentage >= 0 && s.max_total_unready_percentage <= 100))
      v->fail("must be from 0 to 100");
  }
  // fleetsim's: which resources tell a GPU node's GPUs are ready (autoscaler#8095).
  if (auto v = m.get("gpu_readiness")) {
    const std::string mode = v->as_string();
    if (mode == "resource-name") {
      s.gpu_readiness = GpuReadinessCheck::ResourceName;
    } else if (mode == "any-nvidia-resource") {
      s.gpu_readiness = GpuReadinessCheck::AnyNvidiaResource;
    } else {
      v->fail(
          fmt::format("\"{}\" is not a GPU readiness check; expected resource-name "
                      "(upstream's: nvidia.com/gpu) or any-nvidia-resource (the fix "
                      "proposed for autoscaler#8095)",
                      mode.substr(0, 60)));
    }
  }
  if (auto v = m.get("balance_similar_node_groups")) s.balance_similar_node_groups = v->as_bool();
  if (auto v = m.get("new_pod_scale_up_delay")) s.new_pod_scale_up_delay = delay(*v, kMaxDelay);
  if (auto v = m.get("expendable_pods_priority_cutoff")) {
    s.expendable_pods_priority_cutoff = static_cast<std::int32_t>(v->as_int(
        std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
  }
  if (auto v = m.get("initial_node_group_backoff_duration"))
    s.initial_node_group_backoff = delay(*v, kMaxDelay);
  if (auto v = m.get("max_node_group_backoff_duration"))
    s.max_node_group_backoff = delay(*v, kMaxDelay);
  if (auto v = m.get("node_info_cache_expire_time"))
    s.node_info_cache_expire_time = delay(*v, kMaxNodeInfoCacheExpireTime);
  if (auto v = m.get("scale_down_enabled")) s.scale_down_enabled = v->as_bool();
  if (auto v = m.get("scale_down_utilization_threshold"))
    s.scale_down_utilization_threshold = threshold(*v);
  if (auto v = m.get("scale_down_gpu_utilization_threshold"))
    s.scale_down_gpu_utilization_threshold = threshold(*v);
  if (auto v = m.get("scale_down_unneeded_time")) s.scale_down_unneeded_time = delay(*v, kMaxDelay);
  if (auto v = m.get("scale_down_unready_time")) s.scale_down_unready_time = delay(*v, kMaxDelay);
  if (auto v = m.get("scale_down_delay_after_add"))
    s.scale_down_delay_after_add = delay(*v, kMaxDelay);
  if (auto v = m.get("scale_down_delay_after_delete"))
    s.scale_down_delay_after_delete = delay(*v, kMaxDelay);
  if (auto v = m.get("scale_down_delay_after_failure"))
    s.scale_down_delay_after_failure = delay(*v, kMaxDelay);
  if (auto v = m.get("max_graceful_termination_sec"))
    s.max_graceful_termination = seconds(v->as_int(0, 7 * 24 * 3600));
  if (auto v = m.get("max_scale_down_parallelism"))
    s.max_scale_down_parallelism = static_cast<int>(v->as_int(1, 10'000));
  if (auto v = m.get("max_drain_parallelism"))
    s.max_drain_parallelism = static_cast<int>(v->as_int(1, 10'000));
  if (auto v = m.get("skip_nodes_with_system_pods")) s.skip_nodes_with_system_pods = v->as_bool();
  if (auto v = m.get("capacity_buffer_controller_enabled"))
    s.capacity_buffer_controller_enabled = v->as_bool();
  if (auto v = m.get("capacity_buffer_pod_injection_enabled"))
    s.capacity_buffer_pod_injection_enabled = v->as_bool();
  // --enable-dynamic-resource-allocation: true in the release fleetsim follows (its FAQ: "locked
  // to true"); off, the autoscaler's scheduler framework reads no claims.
  if (auto v = m.get("enable_dynamic_resource_allocation"))
    s.dynamic_resource_allocation = v->as_bool();
  m.reject_unread(std::array<std::string_view, 31>{"scan_interval",
                                                   "ok_total_unready_count",
                                                   "max_total_unready_percentage",
                                                   "gpu_readiness",
                                                   "namespace",
                                                   "expander",
                                                   "priorities",
                                                   "max_nodes_total",
                                                   "max_node_provision_time",
                                                   "max_node_startup_time",
                                                   "balance_similar_node_groups",
                                                   "new_pod_scale_up_delay",
                                                   "expendable_pods_priority_cutoff",
                                                   "initial_node_group_backoff_duration",
                                                   "max_node_group_backoff_duration",
                                                   "node_info_cache_expire_time",
                                                   "scale_down_enabled",
                                                   "scale_down_utilization_threshold",
                                                   "scale_down_gpu_utilization_threshold",
                                                   "scale_down_unneeded_time",
                                                   "scale_down_unready_time",
                                                   "scale_down_delay_after_add",
                                                   "scale_down_delay_after_delete",
                                                   "scale_down_delay_after_failure",
                                                   "max_graceful_termination_sec",
                                                   "max_scale_down_parallelism",
                                                   "max_drain_parallelism",
                                                   "skip_nodes_with_system_pods",
                                                   "capacity_buffer_controller_enabled",
                                                   "capacity_buffer_pod_injection_enabled",
                                                   "enable_dynamic_resource_allocation"});
  return s;
}

}  // namespace fleetsim
