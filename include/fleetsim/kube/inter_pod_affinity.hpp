// kube-scheduler's InterPodAffinity filter: required pod affinity and anti-affinity at binding.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// Per node (indexed by NodeId), 1 where the pod may bind as far as inter-pod affinity goes: each
// of its required affinity terms has a pod it selects in the node's domain (or no pod anywhere
// matches any of them and the pod matches them all itself, Kubernetes' first-pod case), no pod
// its required anti-affinity selects is in the node's domain, and no running pod whose required
// anti-affinity selects it is. Zone and hostname keys, as in the solver; `out` is reused.
void inter_pod_affinity_mask(const Cluster& cluster, const Pod& pod,
                             std::vector<std::uint8_t>& out);

// InterPodAffinity's score (interpodaffinity/scoring.go): each running pod adds, to every node
// of its domain, the weights of the pod's preferred affinity terms that select it (less those of
// its preferred anti-affinity terms), and the pod those of its own preferred terms that select
// the pod (anti-affinity subtracting), and hardPodAffinityWeight (1 by default) for each of its
// required affinity terms that does; a node sums its domains' totals; min–max normalized to 0–100,
// truncated, all 0 when equal. False (no score) when neither the pod nor any running pod has
// such terms. Zone and hostname keys.
bool inter_pod_affinity_score(const Cluster& cluster, const Pod& pod,
                              std::span<const NodeId> feasible, std::span<std::int64_t> scores,
                              std::int64_t hard_pod_affinity_weight = 1);

}  // namespace fleetsim
