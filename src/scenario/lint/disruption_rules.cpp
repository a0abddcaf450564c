// Disruption pitfalls: budgets that block for ever, consolidateAfter shorter than a replica's
// start, and pods that keep a consolidating pool from consolidating.
#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/kube/pod_startup.hpp"
#include "lint_view.hpp"

namespace fleetsim::lint {

namespace {

std::string pool_subject(const NodePool& pool) { return fmt::format("NodePool {}", pool.name); }

void budget_blocks_forever(const LintView& view, std::vector<LintFinding>& out) {
  for (const NodePool& pool : view.pools) {
    for (const DisruptionBudget& b : pool.disruption.budgets) {
      if (b.nodes != 0 || !b.schedule.empty()) continue;
      std::string reasons;
      for (DisruptionReason r : b.reasons)
        reasons += fmt::format("{}{}", reasons.empty() ? "" : ", ", to_string(r));
      if (reasons.empty()) reasons = "every reason (emptiness, consolidation, drift)";
      out.push_back(finding(
          "budget-blocks-forever", pool.where, pool_subject(pool),
          fmt::format("a budget of {} nodes without a schedule stops disruption for {} for the "
                      "whole run: no node of the pool is ever removed or replaced for it",
                      b.percent ? "0%" : "0", reasons),
          "give the budget a schedule and a duration (a window when disruption stops), or "
          "remove it"));
    }
  }
}

// Image pull and model load: a replica's start on a fresh node, as the run models it.
SimDuration replica_start(const LintView& view, const ServiceConfig& s) {
  NodeImageStore node(view.config.node_latencies.image_pull_bytes_per_s);
  const SimDuration start =
      node.available_at("image", s.startup.image_bytes, kSimStart).time_since_epoch() +
      s.startup.model_load;
  return seconds((start.count() + 999'999) / 1'000'000);  // whole seconds, for the message
}

void consolidate_after_before_ready(const LintView& view, std::vector<LintFinding>& out) {
  for (std::uint32_t p = 0; p < view.pools.size(); ++p) {
    const NodePool& pool = view.pools[p];
    if (!pool.disruption.consolidate_after) continue;  // Never
    const SimDuration after = *pool.disruption.consolidate_after;
    std::vector<std::string> slow;
    SimDuration longest{0};
    for (const ServiceConfig& s : view.config.services) {
      const std::optional<std::size_t> d =
          view.deployment(s.deployment_namespace, s.deployment_name);
      if (!d) continue;
      const std::vector<std::uint32_t>& pools = view.lands_on[*d];
      const SimDuration start = replica_start(view, s);
      if (start <= after || std::find(pools.begin(), pools.end(), p) == pools.end()) continue;
      slow.push_back(fmt::format("{} ({})", s.deployment, format_duration(start)));
      longest = std::max(longest, start);
    }
    if (slow.empty()) continue;
    out.push_back(finding(
        "consolidate-after-before-ready", pool.where, pool_subject(pool),
        fmt::format("consolidateAfter {} is shorter than a replica's image pull and model load "
                    "on a new node ({}): Karpenter may consolidate a node while a replica is "
                    "still starting there, and the replica starts over elsewhere",
                    format_duration(after), first_names(slow)),
        fmt::format("set spec.disruption.consolidateAfter to more than {}",
                    format_duration(longest))));
  }
}

// A PDB that allows no eviction of a Deployment's pods: maxUnavailable 0, or minAvailable all.
bool blocks_every_eviction(const PodDisruptionBudgetSpec& pdb, const Workload& w) {
  if (pdb.namespace_name != w.namespace_name || !pdb.selector ||
      !pdb.selector->matches(w.pod.labels))
    return false;
  if (pdb.max_unavailable) return pdb.max_unavailable->value == 0;
  if (!pdb.min_available) return false;
  return pdb.min_available->percent ? pdb.min_available->value >= 100
                                    : pdb.min_available->value >= w.replicas;
}

void consolidation_blocked(const LintView& view, std::vector<LintFinding>& out) {
  for (std::size_t w = 0; w < view.workloads.size(); ++w) {
    const Workload& workload = *view.workloads[w];
    if (workload.kind != WorkloadKind::Deployment) continue;  // Jobs end; their nodes free up
    std::vector<std::string> pools;
    for (std::uint32_t p : view.lands_on[w])
      if (view.pools[p].disruption.policy != ConsolidationPolicy::WhenEmpty)
        pools.push_back(view.pools[p].name);
    if (pools.empty()) continue;
    std::string why;
    if (workload.pod.spec.do_not_disrupt == kForever) {
      why = "its pods carry karpenter.sh/do-not-disrupt: \"true\"";
    } else {
      for (const PodDisruptionBudgetSpec& pdb : view.config.pdbs)
        if (blocks_every_eviction(pdb, workload))
          why = fmt::format("PodDisruptionBudget {}/{} allows no eviction of its pods",
                            pdb.namespace_name, pdb.name);
    }
    if (why.empty()) continue;
    out.push_back(finding(
        "consolidation-blocked", workload.where, workload_subject(workload),
        fmt::format("{}, so consolidation never moves them: on NodePool {} the underutilized "
                    "nodes they run on stay, and the policy acts only on nodes without them",
                    why, first_names(pools)),
        "keep karpenter.sh/do-not-disrupt for pods that must finish (Jobs), and let the PDB "
        "allow an eviction (maxUnavailable: 1)"));
  }
}

}  // namespace

void disruption_rules(const LintView& view, std::vector<LintFinding>& out) {
  budget_blocks_forever(view, out);
  consolidate_after_before_ready(view, out);
  consolidation_blocked(view, out);
}

}  // namespace fleetsim::lint
