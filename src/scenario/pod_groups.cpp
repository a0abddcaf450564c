#include "fleetsim/scenario/pod_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

PodGroupObject decode_pod_group(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  PodGroupObject g{.name = meta.name, .namespace_name = meta.namespace_name, .where = meta.where};
  YamlMap spec(manifest.require("spec"));
  const YamlValue policy_value = spec.require("schedulingPolicy");
  YamlMap policy(policy_value);
  const std::optional<YamlValue> basic = policy.get("basic");
  const std::optional<YamlValue> gang = policy.get("gang");
  // PodGroupSchedulingPolicy is a union: exactly one member.
  if (basic.has_value() == gang.has_value())
    policy_value.fail("exactly one of basic and gang must be set");
  if (gang) {
    YamlMap m(*gang);
    // +k8s:minimum=1
    const YamlValue min_count = m.require("minCount");
    g.min_count = static_cast<std::int32_t>(min_count.as_int(
        std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
    if (g.min_count < 1) min_count.fail("must be at least 1");
    m.check_unread(ctx.warnings, ctx.kind, api::GangSchedulingPolicy);
  } else {
    YamlMap(*basic).check_unread(ctx.warnings, ctx.kind, api::PodGroupSchedulingPolicy);
  }
  policy.check_unread(ctx.warnings, ctx.kind, api::PodGroupSchedulingPolicy);
  spec.check_unread(ctx.warnings, ctx.kind, api::PodGroupSpec);
  return g;
}

namespace {

// Whether minCount pods of `requests` exceed the pool's limits on some limited resource.
bool exceeds(const NodePool& pool, const Resources& requests, std::int32_t min_count) {
  if (!pool.limits.resources) return false;
  for (ResourceIndex i = 0; i < resource::kMaxResources; ++i) {
    if (pool.limits.set_mask[i] == 0 || requests[i] == 0) continue;
    if (requests[i] > (*pool.limits.resources)[i] / min_count) return true;
  }
  return false;
}

}  // namespace

void adopt_pod_groups(const std::vector<PodGroupObject>& groups, ScenarioConfig& cfg,
                      WarningLog& warnings) {
  std::set<std::string> limit_warned;
  auto resolve = [&](Workload& w) {
    PodSpec& spec = w.pod.spec;
    if (spec.pod_group.empty()) return;
    cfg.pod_groups = true;
    const auto g = std::find_if(groups.begin(), groups.end(), [&](const PodGroupObject& o) {
      return o.name == spec.pod_group && o.namespace_name == w.namespace_name;
    });
    const std::string field =
        fmt::format("{} {}/{}: {}spec.schedulingGroup.podGroupName", to_string(w.kind),
                    w.namespace_name, w.name, w.kind == WorkloadKind::Pod ? "" : "spec.template.");
    if (g == groups.end()) {
      spec.gang_min_count = PodSpec::kNoPodGroup;
      warnings.add(WarningCode::PodGroupMissing, w.where, field,
                   fmt::format("no PodGroup \"{}\" in namespace {}: kube-scheduler's "
                               "GangScheduling plugin holds its pods at PreEnqueue until one "
                               "exists, so they stay Pending and no provisioner acts for them",
                               spec.pod_group.substr(0, 63), w.namespace_name));
      return;
    }
    spec.gang_min_count = g->min_count;
    if (g->min_count == 0 || cfg.nodepools.empty()) return;
    const bool everywhere =
        std::all_of(cfg.nodepools.begin(), cfg.nodepools.end(),
                    [&](const NodePool& p) { return exceeds(p, spec.requests, g->min_count); });
    if (everywhere && limit_warned.insert(g->namespace_name + "/" + g->name).second)
      warnings.add(WarningCode::GangExceedsLimits, g->where, "PodGroup " + g->name,
                   fmt::format("minCount {} pods of {} {} need more than every NodePool's "
                               "spec.limits allow: the gang never gathers, and the nodes its "
                               "first pods get bill while they wait (as upstream)",
                               g->min_count, to_string(w.kind), w.name));
  };
  for (Workload& w : cfg.workloads) resolve(w);
  for (JobSource& j : cfg.job_sources) resolve(j.template_workload);
  for (ScriptedEvent& e : cfg.events) {
    auto* apply = std::get_if<ApplyManifestsEvent>(&e.action);
    if (apply == nullptr) continue;
    for (Workload& w : apply->workloads) resolve(w);
    for (Workload& w : apply->updates) resolve(w);
  }
}

}  // namespace fleetsim
