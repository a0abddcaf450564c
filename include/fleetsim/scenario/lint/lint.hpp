// `fleetsim lint`: the pitfalls the GPU guides and users' issues show, found in a loaded
// scenario before it runs, each with where it is, what will happen and the fix.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

enum class LintSeverity { Info, Warning };
std::string_view to_string(LintSeverity s);

struct LintRule {
  std::string_view id;
  LintSeverity severity;
  std::string_view summary;  // one line, for --help and README
};

inline constexpr std::array<LintRule, 17> kLintRules{{
    {"keda-average-query", LintSeverity::Warning,
     "a prometheus trigger averages (avg) under an AverageValue target, which caps replicas"},
    {"gpu-threshold-beyond-range", LintSeverity::Warning,
     "a KEDA threshold past what its DCGM gauge can read (80 on a 0-1 ratio): no scale-up"},
    {"replicas-beyond-pool-limits", LintSeverity::Warning,
     "maxReplicas × accelerators per pod exceeds the limits of every NodePool it can land on"},
    {"multi-gpu-types-for-one-gpu-pods", LintSeverity::Warning,
     "1-GPU pods on a NodePool that allows multi-GPU types, which a batch fills with one node"},
    {"limit-below-instance", LintSeverity::Warning,
     "a NodePool limit smaller than one instance type the pool allows"},
    {"budget-blocks-forever", LintSeverity::Warning,
     "a disruption budget of 0 nodes without a schedule: disruption off for the whole run"},
    {"consolidate-after-before-ready", LintSeverity::Warning,
     "consolidateAfter shorter than a replica's image pull and model load"},
    {"consolidation-blocked", LintSeverity::Warning,
     "do-not-disrupt or a PDB that allows no eviction on a consolidating pool's long-running pods"},
    {"gpu-slices-invisible", LintSeverity::Warning,
     "pods asking for MIG slices or shared GPUs that Karpenter cannot see before launch"},
    {"time-sliced-pool-overprovisions", LintSeverity::Warning,
     "a time-sliced GPU pool whose shared GPUs Karpenter counts as whole ones"},
    {"gpu-node-never-ready", LintSeverity::Warning,
     "a GPU-labelled node group offering only MIG or renamed shared GPUs: the Cluster Autoscaler "
     "takes its nodes for unready"},
    {"dra-pods-ignored", LintSeverity::Warning,
     "pods with ResourceClaims, which Karpenter never provisions for (--ignore-dra-requests)"},
    {"spot-only-jobs", LintSeverity::Warning,
     "Jobs that can run only on spot, where an interruption loses their work"},
    {"untolerated-taint", LintSeverity::Warning,
     "a NodePool taint no workload tolerates: the pool never gets a pod"},
    {"unsatisfiable-selector", LintSeverity::Warning,
     "a nodeSelector or required node affinity no NodePool's labels satisfy"},
    {"best-effort-pods", LintSeverity::Warning,
     "pods that request nothing: any number fit on a node, so no node is bought for them"},
    {"unneeded-toleration", LintSeverity::Info, "a toleration of a taint no NodePool sets"},
}};

struct LintFinding {
  std::string_view rule;  // an id of kLintRules
  LintSeverity severity = LintSeverity::Warning;
  SourceLocation where;
  std::string subject;  // "NodePool gpu", "ScaledObject serving/llm"
  std::string what;     // what will happen
  std::string fix;
  // The index in the scenario's lint_accepts of the entry that accepts it; nullopt: reported.
  std::optional<std::size_t> accepted_by;
};

// Every finding of every rule, ordered by file position, then rule.
std::vector<LintFinding> lint_scenario(const ScenarioConfig& config);

// Marks each finding the first entry of `accepts` that matches it (its rule; its file, compared
// as files; its line) accepts, and returns the indices of the entries that match no finding:
// stale acceptances, to be removed.
std::vector<std::size_t> accept_findings(std::span<const LintAcceptance> accepts,
                                         std::vector<LintFinding>& findings);

}  // namespace fleetsim
