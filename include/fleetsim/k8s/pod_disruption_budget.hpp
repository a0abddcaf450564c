// policy/v1 PodDisruptionBudgets and what they allow now, as the Kubernetes disruption
// controller and eviction API compute it (pkg/controller/disruption/disruption.go,
// pkg/registry/core/pod/storage/eviction.go).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/pod_disruption_budget_spec.hpp"

namespace fleetsim {

// status.{expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed}.
struct PdbStatus {
  std::int64_t expected = 0;
  std::int64_t healthy = 0;
  std::int64_t desired_healthy = 0;
  std::int64_t allowed = 0;
};

// The run's PDBs, evaluated against the cluster on demand: evicted pods leave at once, so every
// eviction is counted by the next evaluation (no DisruptedPods bookkeeping is needed). Statuses
// are computed for every PDB in one walk over the pods, again only once a pod's status changed,
// as the disruption controller keeps them current and Karpenter reads them once per pass
// (pdb.NewLimits): a pass over every candidate's pods costs a walk, not a walk per pod.
class PodDisruptionBudgets {
 public:
  PodDisruptionBudgets(const Cluster& cluster, std::vector<PodDisruptionBudgetSpec> specs);

  bool empty() const { return specs_.empty(); }
  const std::vector<PodDisruptionBudgetSpec>& specs() const { return specs_; }

  // Expected pods are the selected pods that have not ended (a controller's replacement counts
  // at once), a stand-in for the controllers' scale; healthy ones are Ready and not terminating.
  // Percentages round up (GetScaledValueFromIntOrPercent); allowed = max(0, healthy − desired).
  PdbStatus status(std::size_t pdb) const;
  // Indices of the PDBs that select the pod, ascending.
  std::vector<std::size_t> covering(const Pod& pod) const;

  // The eviction API's answer now: a pod that is not running yet, or is terminating, goes
  // without a check; a pod under two PDBs cannot be evicted; an unready pod may go when the
  // budget is healthy (IfHealthyBudget) or always (AlwaysAllow); a Ready one when the PDB allows
  // a disruption.
  bool eviction_allowed(const Pod& pod) const;

  // Karpenter's candidate check (pdb.Limits.CanEvictPods): the PDB that keeps the pod from being
  // evicted now, named "namespace/name", or nullopt.
  std::optional<std::string> blocking(const Pod& pod) const;

 private:
  // A namespace's PDBs by one pair of their matchLabels (a pod lacking it cannot match), and
  // those whose selector has none.
  struct NamespaceIndex {
    std::map<std::string, std::map<std::string, std::vector<std::size_t>, std::less<>>, std::less<>>
        by_label;
    std::vector<std::size_t> unkeyed;
  };

  bool selects(const PodDisruptionBudgetSpec& pdb, const Pod& pod) const;
  // covering() into `out` (cleared first), without allocating once `out` has grown.
  void covering(const Pod& pod, std::vector<std::size_t>& out) const;
  void refresh_statuses() const;

  const Cluster& cluster_;
  std::vector<PodDisruptionBudgetSpec> specs_;
  std::map<std::string, NamespaceIndex, std::less<>> index_;
  mutable std::vector<PdbStatus> statuses_;
  mutable std::uint64_t statuses_revision_ = 0;
  mutable bool statuses_valid_ = false;
  mutable std::vector<std::size_t> covering_;  // blocking()'s and eviction_allowed()'s scratch
};

}  // namespace fleetsim
