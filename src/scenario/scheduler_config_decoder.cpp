#include "fleetsim/scenario/scheduler_config_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>

#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"

namespace fleetsim {

namespace {

// The v1 types' fields (kube-scheduler config/v1/types.go), sorted.
constexpr auto kConfigFields = std::to_array<std::string_view>(
    {"apiVersion", "clientConnection", "delayCacheUntilActive", "enableContentionProfiling",
     "enableProfiling", "extenders", "kind", "leaderElection", "parallelism",
     "percentageOfNodesToScore", "percentageOfPlacementsToScore", "podInitialBackoffSeconds",
     "podMaxBackoffSeconds", "profiles"});
constexpr auto kProfileFields =
    std::to_array<std::string_view>({"percentageOfNodesToScore", "percentageOfPlacementsToScore",
                                     "pluginConfig", "plugins", "schedulerName"});
constexpr auto kPluginsFields = std::to_array<std::string_view>(
    {"bind", "filter", "multiPoint", "permit", "placementFeasible", "placementGenerate",
     "placementScore", "podGroupPostFilter", "postBind", "postFilter", "preBind", "preEnqueue",
     "preFilter", "preScore", "queueSort", "reserve", "score"});
constexpr auto kPluginSetFields = std::to_array<std::string_view>({"disabled", "enabled"});
constexpr auto kPluginFields = std::to_array<std::string_view>({"name", "weight"});
constexpr auto kPluginConfigFields = std::to_array<std::string_view>({"args", "name"});
constexpr auto kFitArgsFields = std::to_array<std::string_view>(
    {"apiVersion", "ignoredResourceGroups", "ignoredResources", "kind", "scoringStrategy"});
constexpr auto kScoringStrategyFields =
    std::to_array<std::string_view>({"requestedToCapacityRatio", "resources", "type"});
constexpr auto kResourceSpecFields = std::to_array<std::string_view>({"name", "weight"});
constexpr auto kRatioFields = std::to_array<std::string_view>({"shape"});
constexpr auto kShapePointFields = std::to_array<std::string_view>({"score", "utilization"});
constexpr auto kBalancedArgsFields =
    std::to_array<std::string_view>({"apiVersion", "kind", "resources"});
constexpr auto kSpreadArgsFields =
    std::to_array<std::string_view>({"apiVersion", "defaultConstraints", "defaultingType", "kind"});
constexpr auto kAffinityArgsFields = std::to_array<std::string_view>(
    {"apiVersion", "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods", "kind"});
constexpr auto kNodeAffinityArgsFields =
    std::to_array<std::string_view>({"addedAffinity", "apiVersion", "kind"});
constexpr auto kPreemptionArgsFields = std::to_array<std::string_view>(
    {"apiVersion", "kind", "minCandidateNodesAbsolute", "minCandidateNodesPercentage"});

const ApiType kProfileType{"KubeSchedulerProfile", kProfileFields};
const ApiType kPluginsType{"Plugins", kPluginsFields};
const ApiType kPluginSetType{"PluginSet", kPluginSetFields};
const ApiType kPluginType{"Plugin", kPluginFields};
const ApiType kPluginConfigType{"PluginConfig", kPluginConfigFields};
const ApiType kFitArgsType{"NodeResourcesFitArgs", kFitArgsFields};
const ApiType kScoringStrategyType{"ScoringStrategy", kScoringStrategyFields};
const ApiType kResourceSpecType{"ResourceSpec", kResourceSpecFields};
const ApiType kRatioType{"RequestedToCapacityRatioParam", kRatioFields};
const ApiType kShapePointType{"UtilizationShapePoint", kShapePointFields};
const ApiType kBalancedArgsType{"NodeResourcesBalancedAllocationArgs", kBalancedArgsFields};
const ApiType kSpreadArgsType{"PodTopologySpreadArgs", kSpreadArgsFields};
const ApiType kAffinityArgsType{"InterPodAffinityArgs", kAffinityArgsFields};
const ApiType kNodeAffinityArgsType{"NodeAffinityArgs", kNodeAffinityArgsFields};
const ApiType kPreemptionArgsType{"DefaultPreemptionArgs", kPreemptionArgsFields};

// The in-tree plugins of the v1 API (default_plugins.go and the registry): which extension
// points fleetsim cares about each has, and whether fleetsim applies its filter.
enum Role : unsigned { kNone = 0, kScore = 1, kFilter = 2 };
struct PluginInfo {
  std::string_view name;
  unsigned roles;
  bool filter_modelled;
  std::int64_t default_weight;  // in the default profile's score; 0: not scored by default
};
constexpr auto kPlugins = std::to_array<PluginInfo>({
    {"SchedulingGates", kNone, false, 0},
    {"PrioritySort", kNone, false, 0},
    {"NodeUnschedulable", kFilter, true, 0},
    {"NodeName", kFilter, false, 0},
    {"TaintToleration", kFilter | kScore, true, 3},
    {"NodeAffinity", kFilter | kScore, true, 2},
    {"NodePorts", kFilter, false, 0},
    {"NodeResourcesFit", kFilter | kScore, true, 1},
    {"VolumeRestrictions", kFilter, false, 0},
    {"NodeVolumeLimits", kFilter, false, 0},
    {"VolumeBinding", kFilter | kScore, false, 0},
    {"VolumeZone", kFilter, false, 0},
    {"PodTopologySpread", kFilter | kScore, true, 2},
    {"InterPodAffinity", kFilter | kScore, true, 2},
    {"DynamicResources", kFilter, false, 0},
    {"DefaultPreemption", kNone, false, 0},
    {"NodeResourcesBalancedAllocation", kScore, false, 1},
    {"ImageLocality", kScore, false, 1},
    {"DefaultBinder", kNone, false, 0},
});
constexpr std::size_t kPluginCount = kPlugins.size();
constexpr auto kPluginNames = [] {
  std::array<std::string_view, kPluginCount> out{};
  for (std::size_t i = 0; i < kPluginCount; ++i) out[i] = kPlugins[i].name;
  return out;
}();
// validation.go invalidPluginsByVersion: removed before v1.
constexpr auto kRemovedPlugins = std::to_array<std::string_view>(
    {"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"});

// A warning about one plugin, keyed by it too: each plugin is told once.
void warn_plugin(DecodeContext& ctx, const YamlValue& where, std::string_view plugin,
                 std::string message) {
  ctx.warnings.add(WarningCode::SchedulerPluginNotModelled, where.where(),
                   fmt::format("{}.{} ({})", ctx.kind, strip_indices(where.local_path()), plugin),
                   std::move(message));
}

std::size_t plugin_index(const std::string& name, const YamlValue& where) {
  for (std::size_t i = 0; i < kPluginCount; ++i)
    if (kPlugins[i].name == name) return i;
  if (std::find(kRemovedPlugins.begin(), kRemovedPlugins.end(), name) != kRemovedPlugins.end())
    where.fail(
        fmt::format("plugin {} was invalid in version kubescheduler.config.k8s.io/v1", name));
  where.fail(fmt::format("unknown plugin \"{}\"; fleetsim reads kube-scheduler's in-tree plugins{}",
                         name.substr(0, 60), did_you_mean(name, kPluginNames)));
}

struct PluginRef {
  std::string name;  // "*" only in disabled
  std::size_t index = 0;
  std::int64_t weight = 0;  // 0: unset (the framework counts it as 1)
  YamlValue where;
};

struct PluginSetRead {
  std::vector<PluginRef> enabled, disabled;
};

std::vector<PluginRef> read_plugins(const YamlValue& list, bool disabled, DecodeContext& ctx) {
  std::vector<PluginRef> out;
  for (const YamlValue& item : list.items()) {
    YamlMap p(item);
    YamlValue name_value = p.require("name");
    PluginRef ref{.name = name_value.as_string(), .where = name_value};
    if (!(disabled && ref.name == "*")) ref.index = plugin_index(ref.name, name_value);
    if (auto w = p.get("weight")) {
      // Upstream does not refuse a negative weight; it would turn the score upside down.
      ref.weight = w->as_int(0, kInt32Max);
    }
    p.check_unread(ctx.warnings, ctx.kind, kPluginType);
    out.push_back(std::move(ref));
  }
  return out;
}

PluginSetRead read_plugin_set(const YamlValue& v, DecodeContext& ctx) {
  YamlMap m(v);
  PluginSetRead out;
  if (auto e = m.get("enabled")) out.enabled = read_plugins(*e, false, ctx);
  if (auto d = m.get("disabled")) out.disabled = read_plugins(*d, true, ctx);
  m.check_unread(ctx.warnings, ctx.kind, kPluginSetType);
  return out;
}

// framework.go: an enabled score plugin's weight 0 counts as 1.
std::int64_t effective(std::int64_t weight) { return weight == 0 ? 1 : weight; }

// Merges the profile's plugins over the default ones (default_plugins.go mergePlugins, then the
// framework's MultiPoint expansion): a specific extension point's settings win over MultiPoint's,
// and enabled wins over disabled.
ScoreWeights read_plugins_section(const YamlValue& v, bool& preemption, DecodeContext& ctx) {
  YamlMap m(v);
  const auto preemption_index = static_cast<std::size_t>(
      std::find(kPluginNames.begin(), kPluginNames.end(), "DefaultPreemption") -
      kPluginNames.begin());
  std::array<std::optional<std::int64_t>, kPluginCount> score{};
  // Plugins multiPoint (or their own point) disables, where it does.
  std::array<std::optional<YamlValue>, kPluginCount> off{};
  std::array<std::optional<YamlValue>, kPluginCount> asked{};  // explicitly enabled to score
  for (std::size_t i = 0; i < kPluginCount; ++i)
    if (kPlugins[i].default_weight != 0) score[i] = kPlugins[i].default_weight;

  if (auto mp = m.get("multiPoint")) {
    const PluginSetRead set = read_plugin_set(*mp, ctx);
    for (const PluginRef& d : set.disabled) {
      if (d.name == "*" || d.index == preemption_index) preemption = false;
      for (std::size_t i = 0; i < kPluginCount; ++i) {
        if (d.name != "*" && i != d.index) continue;
        score[i].reset();
        off[i] = d.where;
      }
    }
    for (const PluginRef& e : set.enabled) {
      if (e.index == preemption_index) preemption = true;
      off[e.index].reset();
      if ((kPlugins[e.index].roles & kScore) != 0) {
        score[e.index] = effective(e.weight);
        asked[e.index] = e.where;
      }
    }
  }
  if (auto s = m.get("score")) {
    const PluginSetRead set = read_plugin_set(*s, ctx);
    for (const PluginRef& d : set.disabled)
      for (std::size_t i = 0; i < kPluginCount; ++i)
        if (d.name == "*" || i == d.index) score[i].reset();
    for (const PluginRef& e : set.enabled) {
      if ((kPlugins[e.index].roles & kScore) == 0)
        e.where.fail(fmt::format("plugin {} does not extend the score extension point", e.name));
      score[e.index] = effective(e.weight);
      asked[e.index] = e.where;
    }
  }
  if (auto f = m.get("filter")) {
    const PluginSetRead set = read_plugin_set(*f, ctx);
    for (const PluginRef& d : set.disabled) {
      if (d.name == "*" || kPlugins[d.index].filter_modelled) {
        d.where.fail(fmt::format(
            "disabling the {} filter is not modelled: fleetsim always filters on resources, "
            "taints, node affinity and selectors, schedulability, topology spread and inter-pod "
            "affinity",
            d.name));
      }
      warn_plugin(ctx, d.where, d.name,
                  fmt::format("fleetsim does not model the {} filter; disabling it changes "
                              "nothing",
                              d.name));
    }
    for (const PluginRef& e : set.enabled) {
      if ((kPlugins[e.index].roles & kFilter) == 0)
        e.where.fail(fmt::format("plugin {} does not extend the filter extension point", e.name));
      off[e.index].reset();
    }
  }
  // DefaultPreemption is the only in-tree PostFilter plugin.
  if (auto pf = m.get("postFilter")) {
    const PluginSetRead set = read_plugin_set(*pf, ctx);
    for (const PluginRef& d : set.disabled)
      if (d.name == "*" || d.index == preemption_index) preemption = false;
    for (const PluginRef& e : set.enabled) {
      if (e.index != preemption_index)
        e.where.fail(
            fmt::format("plugin {} does not extend the postFilter extension point", e.name));
      preemption = true;
    }
  }
  // A profile needs a queue sort and a bind plugin: kube-scheduler refuses one without
  // (framework.go: "no queue sort plugin is enabled", "at least one bind plugin is needed").
  struct Required {
    std::string_view point, plugin;
  };
  for (const Required r :
       {Required{"queueSort", "PrioritySort"}, Required{"bind", "DefaultBinder"}}) {
    const auto i = static_cast<std::size_t>(
        std::find(kPluginNames.begin(), kPluginNames.end(), r.plugin) - kPluginNames.begin());
    if (auto point = m.get(r.point)) {
      const PluginSetRead set = read_plugin_set(*point, ctx);
      for (const PluginRef& d : set.disabled)
        if (d.name == "*" || d.index == i) off[i] = d.where;
      for (const PluginRef& e : set.enabled) {
        if (e.index != i)
          e.where.fail(
              fmt::format("plugin {} does not extend the {} extension point", e.name, r.point));
        off[i].reset();
      }
    }
    if (off[i])
      off[i]->fail(
          fmt::format("this leaves the profile without {} ({} plugin), which "
                      "kube-scheduler refuses",
                      r.plugin, r.point));
  }
  for (std::size_t i = 0; i < kPluginCount; ++i) {
    if (off[i] && (kPlugins[i].roles & kFilter) != 0 && kPlugins[i].filter_modelled) {
      off[i]->fail(fmt::format(
          "disabling {} in multiPoint also disables its filter, which fleetsim always applies; "
          "disable it under plugins.score instead",
          kPlugins[i].name));
    }
  }
  {
    const std::string_view name = "VolumeBinding";
    const auto i = static_cast<std::size_t>(
        std::find(kPluginNames.begin(), kPluginNames.end(), name) - kPluginNames.begin());
    if (asked[i] && score[i]) {
      warn_plugin(ctx, *asked[i], name,
                  "the VolumeBinding score is not modelled (fleetsim has no volumes); it scores "
                  "no node");
    }
  }
  // The other extension points hold no plugin fleetsim's binding step would run differently.
  m.check_unread(ctx.warnings, ctx.kind, kPluginsType,
                 "extension point not modelled; fleetsim runs the default plugins there");
  auto weight = [&](std::string_view name) {
    const auto i = static_cast<std::size_t>(
        std::find(kPluginNames.begin(), kPluginNames.end(), name) - kPluginNames.begin());
    return score[i].value_or(0);
  };
  return ScoreWeights{.taint_toleration = weight("TaintToleration"),
                      .node_affinity = weight("NodeAffinity"),
                      .node_resources_fit = weight("NodeResourcesFit"),
                      .pod_topology_spread = weight("PodTopologySpread"),
                      .inter_pod_affinity = weight("InterPodAffinity"),
                      .balanced_allocation = weight("NodeResourcesBalancedAllocation"),
                      .image_locality = weight("ImageLocality")};
}

ResourceIndex resource_slot(const std::string& name, const YamlValue& where, DecodeContext& ctx) {
  std::optional<ResourceIndex> slot = ctx.resources.intern(name);
  if (!slot)
    where.fail(fmt::format("too many distinct resources; fleetsim tracks at most {}",
                           resource::kMaxResources));
  return *slot;
}

// A ResourceSpec: its name and weight, 0 defaulted to 1 (defaults.go).
std::pair<ResourceWeight, YamlValue> read_resource(const YamlValue& item, DecodeContext& ctx) {
  YamlMap r(item);
  YamlValue name = r.require("name");
  const std::string text = name.as_string();
  if (text.empty()) name.fail("a resource name is required");
  ResourceWeight out{.resource = resource_slot(text, name, ctx), .weight = 1};
  YamlValue where = name;
  if (auto w = r.get("weight")) {
    out.weight = effective(w->as_int(kInt32Min, kInt32Max));
    where = *w;
  }
  r.check_unread(ctx.warnings, ctx.kind, kResourceSpecType);
  return {out, where};
}

std::vector<ShapePoint> read_shape(const YamlValue& ratio, DecodeContext& ctx) {
  YamlMap m(ratio);
  YamlValue shape_value = m.require("shape");
  std::vector<ShapePoint> shape;
  for (const YamlValue& item : shape_value.items()) {
    YamlMap p(item);
    ShapePoint point;
    YamlValue u = p.require("utilization");
    point.utilization = u.as_int(kInt32Min, kInt32Max);
    if (point.utilization < 0 || point.utilization > 100)
      u.fail(fmt::format("utilization {} is not in valid range [0, 100]", point.utilization));
    if (!shape.empty() && shape.back().utilization >= point.utilization)
      u.fail("utilization values must be sorted in increasing order");
    if (auto s = p.get("score")) {
      point.score = s->as_int(kInt32Min, kInt32Max);
      if (point.score < 0 || point.score > 10)
        s->fail(fmt::format("score {} is not in valid range [0, 10]", point.score));
    }
    p.check_unread(ctx.warnings, ctx.kind, kShapePointType);
    shape.push_back(point);
  }
  if (shape.empty()) shape_value.fail("at least one point must be specified");
  m.check_unread(ctx.warnings, ctx.kind, kRatioType);
  return shape;
}

// NodeResourcesFitArgs (validation_pluginargs.go ValidateNodeResourcesFitArgs).
FitScoring read_fit_args(const YamlMap& args, DecodeContext& ctx) {
  FitScoring out;
  if (auto s = args.get("scoringStrategy")) {
    YamlMap sm(*s);
    YamlValue type = sm.require("type");
    const std::string text = type.as_string();
    static constexpr auto kTypes = std::to_array<std::string_view>(
        {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"});
    if (text == "LeastAllocated") {
      out.type = ScoringStrategyType::LeastAllocated;
    } else if (text == "MostAllocated") {
      out.type = ScoringStrategyType::MostAllocated;
    } else if (text == "RequestedToCapacityRatio") {
      out.type = ScoringStrategyType::RequestedToCapacityRatio;
    } else {
      type.fail(
          fmt::format("unsupported scoring strategy \"{}\"; expected LeastAllocated, "
                      "MostAllocated or RequestedToCapacityRatio{}",
                      text.substr(0, 40), did_you_mean(text, kTypes)));
    }
    if (auto list = sm.get("resources"); list && !list->items().empty()) {
      out.resources.clear();
      for (const YamlValue& item : list->items()) {
        auto [rw, where] = read_resource(item, ctx);
        if (rw.weight <= 0 || rw.weight > 100)
          where.fail(fmt::format("resource weight of {} not in valid range (0, 100]",
                                 ctx.resources.name(rw.resource)));
        out.resources.push_back(rw);
      }
    }
    if (out.type == ScoringStrategyType::RequestedToCapacityRatio) {
      YamlValue ratio = sm.require("requestedToCapacityRatio");
      out.shape = read_shape(ratio, ctx);
    } else if (auto ratio = sm.get("requestedToCapacityRatio")) {
      ratio->fail(
          "requestedToCapacityRatio must be absent when type is not "
          "RequestedToCapacityRatio");
    }
    sm.check_unread(ctx.warnings, ctx.kind, kScoringStrategyType);
  }
  args.check_unread(ctx.warnings, ctx.kind, kFitArgsType);
  return out;
}

// NodeResourcesBalancedAllocationArgs: distinct resources, each of weight 1.
std::vector<ResourceIndex> read_balanced_args(const YamlMap& args, DecodeContext& ctx) {
  std::vector<ResourceIndex> out{resource::kCpu, resource::kMemory};
  if (auto list = args.get("resources"); list && !list->items().empty()) {
    out.clear();
    for (const YamlValue& item : list->items()) {
      auto [rw, where] = read_resource(item, ctx);
      if (std::find(out.begin(), out.end(), rw.resource) != out.end())
        item.fail(fmt::format("duplicate resource {}", ctx.resources.name(rw.resource)));
      if (rw.weight != 1) where.fail("the weight of a BalancedAllocation resource must be 1");
      out.push_back(rw.resource);
    }
  }
  args.check_unread(ctx.warnings, ctx.kind, kBalancedArgsType);
  return out;
}

// PodTopologySpreadArgs (ValidatePodTopologySpreadArgs).
SpreadDefaults read_spread_args(const YamlMap& args, DecodeContext& ctx) {
  SpreadDefaults out;
  std::optional<YamlValue> type = args.get("defaultingType");
  if (type) {
    const std::string text = type->as_string();
    if (text == "List")
      out.system = false;
    else if (text != "System")
      type->fail(fmt::format("unsupported defaultingType \"{}\"; expected System or List",
                             text.substr(0, 40)));
  }
  std::vector<std::pair<std::string, WhenUnsatisfiable>> seen;
  if (auto list = args.get("defaultConstraints")) {
    const std::vector<YamlValue> items = list->items();
    if (out.system && !items.empty())
      (type ? *type : *list)
          .fail("defaultingType System takes no defaultConstraints (use defaultingType: List)");
    for (const YamlValue& item : items) {
      YamlMap c(item);
      TopologySpread ts;
      YamlValue key = c.require("topologyKey");
      ts.topology_key = key.as_string();
      if (auto p = label_key_problem(ts.topology_key)) key.fail(*p);
      ts.max_skew = static_cast<int>(c.require("maxSkew").as_int(1, kInt32Max));
      YamlValue when = c.require("whenUnsatisfiable");
      const std::string w = when.as_string();
      if (w == "ScheduleAnyway")
        ts.when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
      else if (w != "DoNotSchedule")
        when.fail(
            fmt::format("unsupported whenUnsatisfiable \"{}\"; expected DoNotSchedule or "
                        "ScheduleAnyway",
                        w.substr(0, 40)));
      if (auto sel = c.get("labelSelector"))
        sel->fail("a default constraint must not define a selector: it is the pod's workload's");
      const std::pair<std::string, WhenUnsatisfiable> pair{ts.topology_key, ts.when_unsatisfiable};
      if (std::find(seen.begin(), seen.end(), pair) != seen.end())
        item.fail(fmt::format("duplicate default constraint {{{}, {}}}", ts.topology_key, w));
      seen.push_back(pair);
      c.check_unread(ctx.warnings, ctx.kind, api::TopologySpreadConstraint);
      if (ts.topology_key != label::kZone && ts.topology_key != label::kHostname) {
        ctx.warn(WarningCode::TopologyKeyNotModelled, key,
                 fmt::format("spreading over \"{}\" is not modelled; only zone and hostname are; "
                             "the constraint is ignored",
                             ts.topology_key));
        continue;
      }
      out.list.push_back(std::move(ts));
    }
  }
  args.check_unread(ctx.warnings, ctx.kind, kSpreadArgsType);
  return out;
}

void read_plugin_config(const YamlValue& list, SchedulerProfile& profile, DecodeContext& ctx) {
  std::map<std::string, SourceLocation, std::less<>> seen;
  for (const YamlValue& item : list.items()) {
    YamlMap pc(item);
    YamlValue name_value = pc.require("name");
    const std::string name = name_value.as_string();
    const std::size_t index = plugin_index(name, name_value);
    if (auto [it, inserted] = seen.emplace(name, name_value.where()); !inserted)
      name_value.fail(fmt::format("a second pluginConfig for {} (the first is at {})", name,
                                  it->second.to_string()));
    const std::optional<YamlValue> args_value = pc.get("args");
    pc.check_unread(ctx.warnings, ctx.kind, kPluginConfigType);
    if (!args_value) continue;  // the plugin's default args
    YamlMap args(*args_value);
    args.ignore({"apiVersion", "kind"});
    const std::string_view plugin = kPlugins[index].name;
    if (plugin == "NodeResourcesFit") {
      profile.fit = read_fit_args(args, ctx);
    } else if (plugin == "NodeResourcesBalancedAllocation") {
      profile.balanced_resources = read_balanced_args(args, ctx);
    } else if (plugin == "PodTopologySpread") {
      profile.spread_defaults = read_spread_args(args, ctx);
    } else if (plugin == "InterPodAffinity") {
      if (auto w = args.get("hardPodAffinityWeight"))
        profile.hard_pod_affinity_weight = w->as_int(0, 100);
      args.check_unread(ctx.warnings, ctx.kind, kAffinityArgsType);
    } else if (plugin == "NodeAffinity") {
      if (auto added = args.get("addedAffinity"))
        warn_plugin(ctx, *added, plugin,
                    "NodeAffinity's addedAffinity is not modelled: pods are placed by their own "
                    "node affinity only");
      args.check_unread(ctx.warnings, ctx.kind, kNodeAffinityArgsType);
    } else if (plugin == "DefaultPreemption") {
      // validation_pluginargs.go ValidateDefaultPreemptionArgs.
      if (auto v = args.get("minCandidateNodesPercentage"))
        profile.min_candidate_nodes_percentage = static_cast<std::int32_t>(v->as_int(0, 100));
      if (auto v = args.get("minCandidateNodesAbsolute"))
        profile.min_candidate_nodes_absolute = static_cast<std::int32_t>(v->as_int(0, kInt32Max));
      if (profile.min_candidate_nodes_percentage == 0 && profile.min_candidate_nodes_absolute == 0)
        args_value->fail(
            "minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero");
      args.check_unread(ctx.warnings, ctx.kind, kPreemptionArgsType);
    } else {
      // VolumeBinding, DynamicResources: nothing fleetsim models; the others take no args.
      warn_plugin(ctx, *args_value, plugin,
                  fmt::format("the args of {} are not modelled; ignored", plugin));
      for (const YamlMap::Entry& e : args.entries()) e.read = true;  // told once, above
    }
  }
}

std::int32_t read_percentage(const YamlValue& v) {
  return static_cast<std::int32_t>(v.as_int(0, 100));
}

}  // namespace

const ApiType api::KubeSchedulerConfiguration{"KubeSchedulerConfiguration", kConfigFields};

DecodedSchedulerConfig decode_scheduler_config(const YamlMap& manifest, DecodeContext& ctx) {
  DecodedSchedulerConfig out{.where = manifest.require("kind").where()};
  std::int32_t percentage = 0;
  if (auto p = manifest.get("percentageOfNodesToScore")) percentage = read_percentage(*p);
  std::map<std::string, SourceLocation, std::less<>> names;
  if (auto list = manifest.get("profiles")) {
    for (const YamlValue& item : list->items()) {
      YamlMap m(item);
      SchedulerProfile profile;
      profile.percentage_of_nodes_to_score = percentage;
      if (auto name = m.get("schedulerName")) {
        profile.scheduler_name = name->as_string();
        if (profile.scheduler_name.empty()) name->fail("schedulerName must not be empty");
        if (auto [it, inserted] = names.emplace(profile.scheduler_name, name->where()); !inserted)
          name->fail(fmt::format("a second profile named \"{}\" (the first is at {})",
                                 profile.scheduler_name, it->second.to_string()));
      } else if (auto [it, inserted] = names.emplace(profile.scheduler_name, item.where());
                 !inserted) {
        item.fail(fmt::format("a second profile named \"{}\" (the first is at {})",
                              profile.scheduler_name, it->second.to_string()));
      }
      if (auto p = m.get("percentageOfNodesToScore"))
        profile.percentage_of_nodes_to_score = read_percentage(*p);
      if (auto plugins = m.get("plugins"))
        profile.weights = read_plugins_section(*plugins, profile.preemption, ctx);
      if (auto config = m.get("pluginConfig")) read_plugin_config(*config, profile, ctx);
      m.check_unread(ctx.warnings, ctx.kind, kProfileType);
      out.profiles.push_back(std::move(profile));
    }
  }
  // defaults.go: no profiles means the default one.
  if (out.profiles.empty()) {
    out.profiles.emplace_back();
    out.profiles.back().percentage_of_nodes_to_score = percentage;
  }
  return out;
}

}  // namespace fleetsim
