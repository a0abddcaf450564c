// kube-scheduler's PodTopologySpread plugin (pkg/scheduler/framework/plugins/podtopologyspread):
// its filter for DoNotSchedule constraints and its score for ScheduleAnyway ones or the cluster's
// default constraints. Zone and hostname keys, as the rest of fleetsim.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/kube/scheduler_profile.hpp"

namespace fleetsim {

// The constraints kube-scheduler applies to a pod: its own, or, when it has none and a ReplicaSet
// owns it (a Deployment's pod), the profile's defaults over its ReplicaSet's pods: the system
// defaults (plugin.go systemDefaultConstraints: hostname maxSkew 3 and zone maxSkew 5,
// ScheduleAnyway) or the List the profile's PodTopologySpreadArgs give.
struct SpreadConstraints {
  // The pod spec's own, or the defaults: no copies on the scheduler's path.
  std::vector<const TopologySpread*> hard;  // DoNotSchedule
  std::vector<const TopologySpread*> soft;  // ScheduleAnyway
  bool defaulted = false;       // the defaults apply: the pod's workload is the selector
  bool system_default = false;  // they are the system defaults: only the hostname is required
};
SpreadConstraints spread_constraints(const Cluster& cluster, const Pod& pod,
                                     const SpreadDefaults& defaults);

// filtering.go: per node (indexed by NodeId), 0 where binding the pod would make some hard
// constraint's skew exceed its maxSkew: the matching pods in the node's domain, plus one if the
// pod matches itself, less the fewest in any domain (0 with fewer domains than minDomains).
// Domains are those of every registered node that carries the key and that the constraint's
// inclusion policies admit (the pod's node selection, its tolerations); a node without the key is
// refused. Pods count when they are in the pod's namespace, match the selector and are not
// terminating.
void topology_spread_filter(const Cluster& cluster, const Pod& pod,
                            const SpreadConstraints& constraints,
                            std::vector<std::uint8_t>& allowed);

// scoring.go: 0–100 per feasible node, fewer matching pods in its domains scoring higher:
// per constraint count × ln(domains + 2) + maxSkew − 1, rounded, then
// 100 × (highest + lowest − score) ÷ highest; a node lacking a key gets 0 (with the system
// defaults only the hostname is required).
void topology_spread_score(const Cluster& cluster, const Pod& pod,
                           const SpreadConstraints& constraints, std::span<const NodeId> feasible,
                           std::span<std::int64_t> scores);

}  // namespace fleetsim
