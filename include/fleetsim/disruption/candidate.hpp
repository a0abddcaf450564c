// The nodes Karpenter's disruption methods may act on, and what it weighs them by.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/karpenter_version.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"
#include "fleetsim/provisioning/karpenter/nodeclaims.hpp"

namespace fleetsim {

// The inherent cost of draining a node (core:pkg/controllers/disruption/types.go
// PerNodeBaseDisruptionCost).
inline constexpr double kPerNodeDisruptionCost = 1.0;

// Karpenter's eviction cost of a pod: 1 + priority / 2^25, clamped to [−10, 10]
// (pkg/utils/disruption EvictionCost; pod-deletion-cost is not modelled).
double eviction_cost(const Pod& pod);

struct Candidate {
  NodeId node = kNoNode;
  std::uint32_t pool = 0;
  double price = 0.0;  // its offering's price now, $/h
  // 1 + Σ positive eviction costs of its reschedulable pods (RescheduleDisruptionCost).
  double reschedule_cost = kPerNodeDisruptionCost;
  std::vector<PodId> pods;  // reschedulable: bound, not terminating
  // Before v1.14: Σ eviction costs of all its pods × the share of its expireAfter left
  // (DisruptionCost); the lowest is disrupted first.
  double disruption_cost = 0.0;
  // From v1.14 no pod that costs anything to move (IsEmpty); before, no reschedulable pod.
  bool empty = true;

  // Price per unit of disruption: v1.14 disrupts the highest first.
  double savings_ratio() const { return price / reschedule_cost; }
};

// Karpenter's Consolidatable condition: consolidateAfter (not Never) has passed since the node's
// last pod event.
bool consolidatable(const Node& node, const NodePool& pool, SimTime now);

// Graceful methods (emptiness, consolidation) respect pod blockers; eventual ones (drift) ignore
// them on a node whose pool has a terminationGracePeriod, which bounds the wait.
enum class DisruptionClass { Graceful, Eventual };

// Which candidates a method wants: all, or only the empty ones (emptiness), which spares
// weighing every pod of a full node.
enum class CandidateScope { All, Empty };

// Every node a method may disrupt now (NewCandidate): managed, initialized, not deleting, not
// held by a command, not nominated, not annotated karpenter.sh/do-not-disrupt; and no pod with an
// active do-not-disrupt (a duration counts from the pod's start) or whose PodDisruptionBudget
// allows no eviction. In the release's candidate order (sort_candidates).
std::vector<Candidate> disruption_candidates(const Cluster& cluster, const NodeClaims& claims,
                                             const CloudProvider& cloud,
                                             const PodDisruptionBudgets& pdbs,
                                             const std::vector<NodePool>& pools,
                                             DisruptionClass disruption_class, SimTime now,
                                             KarpenterVersion version,
                                             CandidateScope scope = CandidateScope::All);

// Candidate order for every method but drift: from v1.14 savings ratio descending, before it
// disruption cost ascending; ties by name (upstream's sort is unstable: any order is upstream's).
void sort_candidates(std::vector<Candidate>& candidates, const Cluster& cluster,
                     KarpenterVersion version);
// That order's comparison: a strict total order while node names are unique, so the order of a
// subset is the subset of the order.
bool candidate_before(const Candidate& a, const Candidate& b, const Cluster& cluster,
                      bool by_ratio);

// LifetimeRemaining (utils/disruption): the share of the NodeClaim's expireAfter still ahead.
double lifetime_remaining(const Node& node, const NodePool& pool, SimTime now);

}  // namespace fleetsim
