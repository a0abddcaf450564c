// kube-scheduler's InterPodAffinity filter: required pod affinity and anti-affinity at binding.
#pragma once

#include <cstdint>
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

}  // namespace fleetsim
