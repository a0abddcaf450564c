// What the lint rules share: the scenario's NodePools (those scripted applies bring included)
// as the solver sees them, the workloads, and which pools each workload's pods can land on.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/scenario/lint/lint.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim::lint {

struct LintView {
  explicit LintView(const ScenarioConfig& config);

  const ScenarioConfig& config;
  std::vector<NodePool> pools;              // the scenario's, then each apply's, in order
  std::string_view pool_noun = "NodePool";  // "node group" under the Cluster Autoscaler
  std::vector<EC2NodeClass> classes;        // likewise
  std::unique_ptr<SchedulingContext> context;
  // Every pool whose nodes host pods: `pools`, then under Karpenter the node groups beside them
  // (read as NodePools, their nodes' labels included), as the checks at load see them.
  std::vector<NodePool> hosts;
  std::unique_ptr<SchedulingContext> hosts_context;
  std::vector<const Workload*> workloads;  // manifests', applies', and job trace templates
  std::vector<bool> from_trace;            // per workload: a trace template (rows set requests)
  // Per workload: the indices of the pools a pod of it can land on (taints, requirements and
  // resources all allow some type of the pool).
  std::vector<std::vector<std::uint32_t>> lands_on;

  // The index into `workloads` of a Deployment, if there is one of that namespace and name.
  std::optional<std::size_t> deployment(std::string_view ns, std::string_view name) const;
};

std::string workload_subject(const Workload& w);

using Rule = void (*)(const LintView&, std::vector<LintFinding>&);
void autoscaling_rules(const LintView& view, std::vector<LintFinding>& out);
void nodepool_rules(const LintView& view, std::vector<LintFinding>& out);
void disruption_rules(const LintView& view, std::vector<LintFinding>& out);
void placement_rules(const LintView& view, std::vector<LintFinding>& out);
void gpu_sharing_rules(const LintView& view, std::vector<LintFinding>& out);
void ca_gpu_rules(const LintView& view, std::vector<LintFinding>& out);

// A finding of rule `id` with its severity from kLintRules.
LintFinding finding(std::string_view id, SourceLocation where, std::string subject,
                    std::string what, std::string fix);

}  // namespace fleetsim::lint
