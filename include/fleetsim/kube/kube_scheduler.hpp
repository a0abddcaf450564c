// kube-scheduler's binding step: pending pods onto initialized nodes with room.
#pragma once

#include <functional>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"

namespace fleetsim {

// One pass per instant at most, after whatever changed in it. Each pod goes to the feasible
// initialized node with the lowest requested share of CPU and memory (kube-scheduler's default
// LeastAllocated score; ties by name). Karpenter's nomination is internal to Karpenter (v1 never
// sets status.nominatedNodeName), so it does not steer binding.
// Topology spread is enforced when Karpenter plans; this step honours resources, taints, node
// requirements and required pod affinity and anti-affinity (preferred terms only score in
// kube-scheduler, which fleetsim does not model). Pods that fit nowhere are reported
// unschedulable, which triggers Karpenter.
class KubeScheduler : private EventHandler {
 public:
  KubeScheduler(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                std::function<void(PodId)> on_unschedulable);

  // Asks for a pass at the current instant (coalesced).
  void request_pass();

 private:
  void on_event(SimTime now, std::uint64_t tag) override;
  bool feasible(const Pod& pod, const Node& node) const;

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  std::function<void(PodId)> on_unschedulable_;
  EventHandle pass_;
};

}  // namespace fleetsim
