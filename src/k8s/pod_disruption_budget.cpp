#include "fleetsim/k8s/pod_disruption_budget.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

bool ended(const Pod& p) { return p.phase == PodPhase::Succeeded || p.phase == PodPhase::Deleted; }

}  // namespace

PodDisruptionBudgets::PodDisruptionBudgets(const Cluster& cluster,
                                           std::vector<PodDisruptionBudgetSpec> specs)
    : cluster_(cluster), specs_(std::move(specs)) {}

bool PodDisruptionBudgets::selects(const PodDisruptionBudgetSpec& pdb, const Pod& pod) const {
  return pdb.selector && pod.namespace_name == pdb.namespace_name && pod.labels != nullptr &&
         pdb.selector->matches(*pod.labels);
}

PdbStatus PodDisruptionBudgets::status(std::size_t i) const {
  const PodDisruptionBudgetSpec& pdb = specs_[i];
  PdbStatus s;
  for (const Pod& p : cluster_.pods()) {
    if (ended(p) || !selects(pdb, p)) continue;
    ++s.expected;
    if (p.ready && !p.terminating) ++s.healthy;
  }
  if (pdb.min_available) {
    s.desired_healthy = scaled_value(*pdb.min_available, s.expected, true);
  } else if (pdb.max_unavailable) {
    s.desired_healthy = std::max<std::int64_t>(
        0, s.expected - scaled_value(*pdb.max_unavailable, s.expected, true));
  }
  s.allowed = std::max<std::int64_t>(0, s.healthy - s.desired_healthy);
  return s;
}

std::vector<std::size_t> PodDisruptionBudgets::covering(const Pod& pod) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (selects(specs_[i], pod)) out.push_back(i);
  return out;
}

bool PodDisruptionBudgets::eviction_allowed(const Pod& pod) const {
  if (pod.phase != PodPhase::Running || pod.terminating) return true;  // canIgnorePDB
  const std::vector<std::size_t> pdbs = covering(pod);
  if (pdbs.empty()) return true;
  if (pdbs.size() > 1) return false;  // "This pod has more than one PodDisruptionBudget"
  const PodDisruptionBudgetSpec& pdb = specs_[pdbs.front()];
  const PdbStatus s = status(pdbs.front());
  if (!pod.ready) {
    return pdb.unhealthy_pod_eviction_policy == UnhealthyPodEvictionPolicy::AlwaysAllow ||
           s.healthy >= s.desired_healthy;
  }
  return s.allowed > 0;
}

std::optional<std::string> PodDisruptionBudgets::blocking(const Pod& pod) const {
  if (specs_.empty() || pod.terminating) return std::nullopt;
  const std::vector<std::size_t> pdbs = covering(pod);
  if (pdbs.empty()) return std::nullopt;
  const PodDisruptionBudgetSpec& first = specs_[pdbs.front()];
  const std::string name = first.namespace_name + "/" + first.name;
  if (pdbs.size() > 1) return name;  // Kubernetes refuses to evict a pod under two PDBs
  if (!pod.ready && first.unhealthy_pod_eviction_policy == UnhealthyPodEvictionPolicy::AlwaysAllow)
    return std::nullopt;
  if (status(pdbs.front()).allowed == 0) return name;
  return std::nullopt;
}

}  // namespace fleetsim
