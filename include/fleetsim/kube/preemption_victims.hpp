// The default preemption plugin's choices (pkg/scheduler/framework/plugins/defaultpreemption and
// framework/preemption): which pods on a node to evict for a higher-priority pod, and which node.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"

namespace fleetsim {

// MoreImportantPod: higher priority, then the earlier start (bound_at stands for
// status.startTime).
bool more_important(const Pod& a, const Pod& b);

// The PDBs' disruptionsAllowed, which filterPodsWithPDBViolation counts down per victim.
std::vector<std::int64_t> pdb_allowances(const PodDisruptionBudgets* pdbs);

struct NodeVictims {
  NodeId node = kNoNode;
  std::vector<PodId> pods;  // most important first
  std::int64_t pdb_violations = 0;
};

// selectVictimsOnNode, on resources: every bound pod of lower priority is a potential victim;
// if the preemptor fits on the node without them all (`available` already leaves out the
// nominated pods of its priority or higher), the most important are reprieved one by one while
// it still fits, the ones whose eviction would violate a PDB first. Empty pods: not a candidate.
// `allowed` is pdb_allowances(pdbs) (copied: each node counts from the same figures).
NodeVictims select_victims_on_node(const Cluster& cluster, const Pod& preemptor, NodeId node,
                                   const Resources& available, const PodDisruptionBudgets* pdbs,
                                   std::vector<std::int64_t> allowed);

// pickOneNodeForPreemption: fewest PDB violations, then the lowest highest-priority victim, the
// smallest sum of priorities, the fewest victims, the latest earliest start among the
// highest-priority victims; then the first. Candidates are not empty; returns an index.
std::size_t pick_one_node(const Cluster& cluster, std::span<const NodeVictims> candidates);

// calculateNumCandidates: DefaultPreemptionArgs' share of the potential nodes (default 10%), at
// least its absolute count (default 100), at most all.
std::size_t preemption_candidates_wanted(std::size_t potential_nodes, std::int32_t percentage,
                                         std::int32_t absolute);

}  // namespace fleetsim
