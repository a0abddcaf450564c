// Placement pitfalls: taints nothing tolerates, selectors no pool satisfies, tolerations of
// taints no pool sets.
#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/scheduling/requirements_objection.hpp"
#include "lint_view.hpp"

namespace fleetsim::lint {

namespace {

bool schedules_pods(const Taint& t) { return t.effect != TaintEffect::PreferNoSchedule; }

std::string taint_text(const Taint& t) {
  return fmt::format("{}{}{}:{}", t.key, t.value.empty() ? "" : "=", t.value, to_string(t.effect));
}

void untolerated_taint(const LintView& view, std::vector<LintFinding>& out) {
  for (const NodePool& pool : view.pools) {
    if (pool.built_in) continue;  // Auto Mode's: its taint is meant for system add-ons
    for (const Taint& taint : pool.taints) {
      if (!schedules_pods(taint)) continue;
      const bool tolerated =
          std::any_of(view.workloads.begin(), view.workloads.end(), [&](const Workload* w) {
            return std::any_of(w->pod.spec.tolerations.begin(), w->pod.spec.tolerations.end(),
                               [&](const Toleration& t) { return t.tolerates(taint); });
          });
      if (tolerated) continue;
      out.push_back(finding(
          "untolerated-taint", pool.where, fmt::format("{} {}", view.pool_noun, pool.name),
          fmt::format("no workload tolerates its taint {}, so the pool never gets a pod",
                      taint_text(taint)),
          fmt::format("add a toleration of {} to the workloads meant for this pool, or remove "
                      "the taint",
                      taint.key)));
    }
  }
}

// Requirements alone (not taints or resources): a selector that no pool's requirements and
// labels, nor the labels of any instance type it may launch, satisfy.
void unsatisfiable_selector(const LintView& view, std::vector<LintFinding>& out) {
  if (view.hosts.empty()) return;
  const SchedulingContext& ctx = *view.hosts_context;
  for (const Workload* w : view.workloads) {
    const PodSpec& spec = w->pod.spec;
    if (spec.node_requirements.empty() && spec.alternative_node_requirements.empty()) continue;
    std::vector<std::string> why;
    bool satisfiable = false;
    for (std::uint32_t p = 0; p < view.hosts.size() && !satisfiable; ++p) {
      auto objection = requirements_objection(ctx, p, spec, spec.node_requirements);
      satisfiable = !objection;
      for (const Requirements& alt : spec.alternative_node_requirements)
        satisfiable = satisfiable || !requirements_objection(ctx, p, spec, alt);
      if (objection)
        why.push_back(
            fmt::format("{} {}: {}", pool_noun(view.hosts[p]), view.hosts[p].name, *objection));
    }
    if (satisfiable) continue;
    out.push_back(finding(
        "unsatisfiable-selector", w->where, workload_subject(*w),
        fmt::format("its nodeSelector or required node affinity matches no {} ({}), so its "
                    "pods stay Pending",
                    view.pool_noun, fmt::join(why, "; ")),
        "set the label in a NodePool's template metadata.labels (or its requirements), or fix "
        "the selector"));
  }
}

// BestEffort pods (trace templates aside: each row gives its job's requests).
void best_effort_pods(const LintView& view, std::vector<LintFinding>& out) {
  for (std::size_t i = 0; i < view.workloads.size(); ++i) {
    const Workload* w = view.workloads[i];
    if (view.from_trace[i] || !w->pod.spec.requests_nothing()) continue;
    out.push_back(finding(
        "best-effort-pods", w->where, workload_subject(*w),
        "its pods request no CPU, memory or accelerator: any number of them fit on a node, so "
        "no node is ever bought for them (and the kubelet evicts them first under pressure)",
        "give its containers resources.requests for what they use"));
  }
}

// Tolerations that tolerate taints fleetsim's nodes may carry whatever the pools say.
bool tolerates_system_taint(const Toleration& t) {
  return t.key.empty() || t.key.starts_with("node.kubernetes.io/") ||
         t.key.starts_with("karpenter.sh/") ||
         t.key.starts_with("node.cloudprovider.kubernetes.io/");
}

void unneeded_toleration(const LintView& view, std::vector<LintFinding>& out) {
  for (const Workload* w : view.workloads) {
    for (const Toleration& t : w->pod.spec.tolerations) {
      if (tolerates_system_taint(t)) continue;
      const bool needed = std::any_of(view.pools.begin(), view.pools.end(), [&](const NodePool& p) {
        return std::any_of(p.taints.begin(), p.taints.end(),
                           [&](const Taint& taint) { return t.tolerates(taint); }) ||
               std::any_of(p.startup_taints.begin(), p.startup_taints.end(),
                           [&](const Taint& taint) { return t.tolerates(taint); });
      });
      if (needed) continue;
      out.push_back(
          finding("unneeded-toleration", w->where, workload_subject(*w),
                  fmt::format("it tolerates {}, which no {}'s taints include: the toleration "
                              "changes nothing",
                              t.key, view.pool_noun),
                  "drop the toleration, or taint the NodePool meant for these pods"));
    }
  }
}

}  // namespace

void placement_rules(const LintView& view, std::vector<LintFinding>& out) {
  untolerated_taint(view, out);
  unsatisfiable_selector(view, out);
  best_effort_pods(view, out);
  unneeded_toleration(view, out);
}

}  // namespace fleetsim::lint
