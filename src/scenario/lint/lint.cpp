#include "fleetsim/scenario/lint/lint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "fleetsim/cloudprovider/aws/aws_instance_types.hpp"
#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"
#include "lint_view.hpp"

namespace fleetsim {

std::string_view to_string(LintSeverity s) { return s == LintSeverity::Info ? "info" : "warning"; }

namespace lint {

LintView::LintView(const ScenarioConfig& c)
    : config(c),
      pools(c.provisioner == ProvisionerKind::ClusterAutoscaler ? std::vector<NodePool>{}
                                                                : c.nodepools),
      classes(c.node_classes) {
  // Under the Cluster Autoscaler the node groups are the pools; the placement rules read them
  // as NodePools (their instance types, zones, labels and taints).
  if (c.provisioner == ProvisionerKind::ClusterAutoscaler) {
    pool_noun = "node group";
    for (const NodeGroup& g : c.node_groups) pools.push_back(as_nodepool(g));
  }
  for (const Workload& w : c.workloads) workloads.push_back(&w);
  for (const ScriptedEvent& e : c.events) {
    const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action);
    if (apply == nullptr) continue;
    pools.insert(pools.end(), apply->nodepools.begin(), apply->nodepools.end());
    classes.insert(classes.end(), apply->node_classes.begin(), apply->node_classes.end());
    for (const Workload& w : apply->workloads) workloads.push_back(&w);
  }
  from_trace.assign(workloads.size(), false);
  for (const JobSource& j : c.job_sources) {
    workloads.push_back(&j.template_workload);
    from_trace.push_back(true);
  }
  const AwsInstanceTypes sizer(*c.catalog);  // the nodes EC2 would launch
  context = make_scheduling_context(NodePoolInputs{.catalog = *c.catalog,
                                                   .node_classes = classes,
                                                   .daemonsets = c.daemonsets,
                                                   .overlays = c.node_overlays},
                                    pools, sizer);
  hosts = pools;
  if (c.provisioner != ProvisionerKind::ClusterAutoscaler)
    for (const NodeGroup& g : c.node_groups) hosts.push_back(as_nodepool(g));
  hosts_context = make_scheduling_context(NodePoolInputs{.catalog = *c.catalog,
                                                         .node_classes = classes,
                                                         .daemonsets = c.daemonsets,
                                                         .overlays = c.node_overlays},
                                          hosts, sizer);
  for (const Workload* w : workloads) {
    std::vector<std::uint32_t>& on = lands_on.emplace_back();
    for (std::uint32_t p = 0; p < pools.size(); ++p)
      if (!context->types_for(w->pod.spec, p).none()) on.push_back(p);
  }
}

std::optional<std::size_t> LintView::deployment(std::string_view ns, std::string_view name) const {
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const Workload& w = *workloads[i];
    if (w.kind == WorkloadKind::Deployment && w.namespace_name == ns && w.name == name) return i;
  }
  return std::nullopt;
}

std::string workload_subject(const Workload& w) {
  return fmt::format("{} {}/{}", to_string(w.kind), w.namespace_name, w.name);
}

LintFinding finding(std::string_view id, SourceLocation where, std::string subject,
                    std::string what, std::string fix) {
  const auto* rule = std::find_if(kLintRules.begin(), kLintRules.end(),
                                  [&](const LintRule& r) { return r.id == id; });
  FLEETSIM_ASSERT(rule != kLintRules.end());
  return LintFinding{.rule = rule->id,
                     .severity = rule->severity,
                     .where = std::move(where),
                     .subject = std::move(subject),
                     .what = std::move(what),
                     .fix = std::move(fix)};
}

}  // namespace lint

std::vector<LintFinding> lint_scenario(const ScenarioConfig& config) {
  const lint::LintView view(config);
  std::vector<LintFinding> out;
  // The NodePool and disruption rules are about Karpenter's settings; under the Cluster
  // Autoscaler the placement and autoscaling rules apply to its node groups, with its own GPU rule.
  if (config.provisioner == ProvisionerKind::ClusterAutoscaler) {
    lint::autoscaling_rules(view, out);
    lint::placement_rules(view, out);
    lint::ca_gpu_rules(view, out);
  } else {
    for (lint::Rule rule : {lint::autoscaling_rules, lint::nodepool_rules, lint::disruption_rules,
                            lint::placement_rules, lint::gpu_sharing_rules})
      rule(view, out);
  }
  std::stable_sort(out.begin(), out.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.where.file, a.where.line, a.where.col, a.rule) <
           std::tie(b.where.file, b.where.line, b.where.col, b.rule);
  });
  return out;
}

}  // namespace fleetsim
