// How controllers tell each other, and the observers, what changed. The world implements it.
#pragma once

#include "fleetsim/k8s/sim_event.hpp"

namespace fleetsim {

class ClusterBus {
 public:
  virtual ~ClusterBus() = default;
  // Reports an event to the observers (the cluster already reflects it).
  virtual void emit(const SimEvent& e) = 0;
  // A pod needs a node: kube-scheduler tries existing nodes, else Karpenter is triggered.
  virtual void pod_pending(PodId pod) = 0;
  // A pod was bound to an initialized node: its workload starts its run timer.
  virtual void pod_bound(PodId pod) = 0;
  // A bound pod was evicted from `node` (spot interruption, disruption): its controller
  // replaces it.
  virtual void pod_evicted(PodId pod, NodeId node) = 0;
  // Its controller deleted a bound pod: it stops taking work and, once it has exited (at once,
  // or when a serving replica has drained or its grace period ends), leaves its node.
  virtual void pod_terminating(PodId pod) = 0;
  // kube-scheduler is about to delete a bound pod to make room for a higher-priority one: its
  // controller replaces it (pod_terminating follows, as the pod runs out its grace period on
  // its node).
  virtual void pod_preempted(PodId pod) = 0;
  // Capacity appeared or was freed (a node initialized, a pod left): pending pods may bind.
  virtual void capacity_changed() = 0;
};

}  // namespace fleetsim
