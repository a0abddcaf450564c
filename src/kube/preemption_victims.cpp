#include "fleetsim/kube/preemption_victims.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>

namespace fleetsim {

bool more_important(const Pod& a, const Pod& b) {
  if (a.spec->priority != b.spec->priority) return a.spec->priority > b.spec->priority;
  return a.bound_at < b.bound_at;
}

std::vector<std::int64_t> pdb_allowances(const PodDisruptionBudgets* pdbs) {
  std::vector<std::int64_t> out;
  if (pdbs == nullptr) return out;
  for (std::size_t i = 0; i < pdbs->specs().size(); ++i) out.push_back(pdbs->status(i).allowed);
  return out;
}

NodeVictims select_victims_on_node(const Cluster& cluster, const Pod& preemptor, NodeId node,
                                   const Resources& available, const PodDisruptionBudgets* pdbs,
                                   std::vector<std::int64_t> allowed) {
  NodeVictims out{.node = node};
  std::vector<const Pod*> potential;
  Resources free = available;
  for (PodId id : cluster.node(node).pods) {
    const Pod& p = cluster.pod(id);
    if (p.spec->priority >= preemptor.spec->priority) continue;
    potential.push_back(&p);
    free += p.spec->requests;
  }
  const Resources& wants = preemptor.spec->requests;
  if (potential.empty() || !wants.fits_in(free)) return out;
  std::stable_sort(potential.begin(), potential.end(),
                   [](const Pod* a, const Pod* b) { return more_important(*a, *b); });
  // filterPodsWithPDBViolation: in that order, a pod whose eviction takes a covering PDB below
  // zero allowed disruptions violates it. A pod without labels matches no PDB.
  std::vector<const Pod*> violating, non_violating;
  for (const Pod* p : potential) {
    bool violates = false;
    if (pdbs != nullptr && p->labels != nullptr && !p->labels->empty()) {
      for (std::size_t i : pdbs->covering(*p)) violates |= --allowed[i] < 0;
    }
    (violates ? violating : non_violating).push_back(p);
  }
  // Reprieve the most important first: a pod goes back unless the preemptor then no longer fits.
  auto reprieve = [&](const Pod* p) {
    if (wants.fits_in(free - p->spec->requests)) {
      free -= p->spec->requests;
      return true;
    }
    out.pods.push_back(p->id);
    return false;
  };
  for (const Pod* p : violating)
    if (!reprieve(p)) ++out.pdb_violations;
  for (const Pod* p : non_violating) reprieve(p);
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(out.pods.begin(), out.pods.end(), [&](PodId a, PodId b) {
      return more_important(cluster.pod(a), cluster.pod(b));
    });
  }
  return out;
}

namespace {

// GetEarliestPodStartTime: the earliest start among the victims of the highest priority.
SimTime earliest_start_of_highest(const Cluster& cluster, const NodeVictims& v) {
  const std::int32_t highest = cluster.pod(v.pods.front()).spec->priority;
  SimTime earliest = kNever;
  for (PodId id : v.pods) {
    const Pod& p = cluster.pod(id);
    if (p.spec->priority == highest) earliest = std::min(earliest, p.bound_at);
  }
  return earliest;
}

}  // namespace

std::size_t pick_one_node(const Cluster& cluster, std::span<const NodeVictims> candidates) {
  using Score = std::int64_t;
  auto highest = [&](const NodeVictims& v) -> Score {
    return cluster.pod(v.pods.front()).spec->priority;
  };
  auto sum = [&](const NodeVictims& v) {
    // Each priority shifted by 2^31 to be positive, so that more victims never sum to less.
    Score total = 0;
    for (PodId id : v.pods)
      total += Score{cluster.pod(id).spec->priority} +
               Score{std::numeric_limits<std::int32_t>::max()} + 1;
    return total;
  };
  // Each score is higher for the better node; a score that leaves one node decides.
  const std::array<std::function<Score(const NodeVictims&)>, 5> scores{
      [](const NodeVictims& v) { return -v.pdb_violations; },
      [&](const NodeVictims& v) { return -highest(v); },
      [&](const NodeVictims& v) { return -sum(v); },
      [](const NodeVictims& v) { return -static_cast<Score>(v.pods.size()); },
      [&](const NodeVictims& v) {
        return (earliest_start_of_highest(cluster, v) - kSimStart).count();
      },
  };
  std::vector<std::size_t> left(candidates.size());
  for (std::size_t i = 0; i < left.size(); ++i) left[i] = i;
  for (const auto& score : scores) {
    Score best = std::numeric_limits<Score>::min();
    std::vector<std::size_t> kept;
    for (std::size_t i : left) {
      const Score s = score(candidates[i]);
      if (s > best) {
        best = s;
        kept.clear();
      }
      if (s == best) kept.push_back(i);
    }
    if (kept.size() == 1) return kept.front();
    left = std::move(kept);
  }
  return left.front();
}

std::size_t preemption_candidates_wanted(std::size_t potential_nodes, std::int32_t percentage,
                                         std::int32_t absolute) {
  const std::size_t share = potential_nodes * static_cast<std::size_t>(percentage) / 100;
  return std::min(potential_nodes, std::max(static_cast<std::size_t>(absolute), share));
}

}  // namespace fleetsim
