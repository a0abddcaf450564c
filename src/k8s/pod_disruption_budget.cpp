#include "fleetsim/k8s/pod_disruption_budget.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

bool ended(const Pod& p) { return p.phase == PodPhase::Succeeded || p.phase == PodPhase::Deleted; }

}  // namespace

PodDisruptionBudgets::PodDisruptionBudgets(const Cluster& cluster,
                                           std::vector<PodDisruptionBudgetSpec> specs)
    : cluster_(cluster), specs_(std::move(specs)) {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const PodDisruptionBudgetSpec& pdb = specs_[i];
    if (!pdb.selector) continue;  // selects no pod
    NamespaceIndex& ns = index_[pdb.namespace_name];
    const Labels& match = pdb.selector->match_labels;
    if (match.empty()) {
      ns.unkeyed.push_back(i);
    } else {
      const auto& [key, value] = *match.begin();
      ns.by_label[key][value].push_back(i);
    }
  }
}

bool PodDisruptionBudgets::selects(const PodDisruptionBudgetSpec& pdb, const Pod& pod) const {
  return pdb.selector && pod.namespace_name == pdb.namespace_name && pod.labels != nullptr &&
         pdb.selector->matches(*pod.labels);
}

void PodDisruptionBudgets::covering(const Pod& pod, std::vector<std::size_t>& out) const {
  out.clear();
  if (pod.labels == nullptr) return;
  auto ns = index_.find(pod.namespace_name);
  if (ns == index_.end()) return;
  const auto keep = [&](std::size_t i) {
    if (specs_[i].selector->matches(*pod.labels)) out.push_back(i);
  };
  for (const auto& [key, value] : *pod.labels) {
    auto by_key = ns->second.by_label.find(key);
    if (by_key == ns->second.by_label.end()) continue;
    auto by_value = by_key->second.find(value);
    if (by_value == by_key->second.end()) continue;
    for (std::size_t i : by_value->second) keep(i);
  }
  for (std::size_t i : ns->second.unkeyed) keep(i);
  std::sort(out.begin(), out.end());
}

std::vector<std::size_t> PodDisruptionBudgets::covering(const Pod& pod) const {
  std::vector<std::size_t> out;
  covering(pod, out);
  return out;
}

void PodDisruptionBudgets::refresh_statuses() const {
  if (statuses_valid_ && statuses_revision_ == cluster_.pod_status_revision()) return;
  statuses_.assign(specs_.size(), PdbStatus{});
  std::vector<std::size_t> pdbs;
  for (const Pod& p : cluster_.pods()) {
    if (ended(p)) continue;
    covering(p, pdbs);
    for (std::size_t i : pdbs) {
      ++statuses_[i].expected;
      if (p.ready && !p.terminating) ++statuses_[i].healthy;
    }
  }
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const PodDisruptionBudgetSpec& pdb = specs_[i];
    PdbStatus& s = statuses_[i];
    if (pdb.min_available) {
      s.desired_healthy = scaled_value(*pdb.min_available, s.expected, true);
    } else if (pdb.max_unavailable) {
      s.desired_healthy = std::max<std::int64_t>(
          0, s.expected - scaled_value(*pdb.max_unavailable, s.expected, true));
    }
    s.allowed = std::max<std::int64_t>(0, s.healthy - s.desired_healthy);
  }
  statuses_revision_ = cluster_.pod_status_revision();
  statuses_valid_ = true;
}

PdbStatus PodDisruptionBudgets::status(std::size_t i) const {
  refresh_statuses();
  return statuses_[i];
}

bool PodDisruptionBudgets::eviction_allowed(const Pod& pod) const {
  if (pod.phase != PodPhase::Running || pod.terminating) return true;  // canIgnorePDB
  covering(pod, covering_);
  const std::vector<std::size_t>& pdbs = covering_;
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
  covering(pod, covering_);
  if (covering_.empty()) return std::nullopt;
  const PodDisruptionBudgetSpec& first = specs_[covering_.front()];
  // Kubernetes refuses to evict a pod under two PDBs.
  const bool blocked =
      covering_.size() > 1 || ((pod.ready || first.unhealthy_pod_eviction_policy !=
                                                 UnhealthyPodEvictionPolicy::AlwaysAllow) &&
                               status(covering_.front()).allowed == 0);
  if (!blocked) return std::nullopt;
  return first.namespace_name + "/" + first.name;
}

}  // namespace fleetsim
