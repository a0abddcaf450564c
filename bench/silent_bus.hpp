// A ClusterBus that goes nowhere: benchmarks time one component, not its listeners.
#pragma once

#include "fleetsim/k8s/cluster_bus.hpp"

namespace fleetsim {

class SilentBus : public ClusterBus {
 public:
  void emit(const SimEvent&) override {}
  void pod_pending(PodId) override {}
  void pod_bound(PodId) override {}
  void pod_evicted(PodId, NodeId) override {}
  void pod_terminating(PodId) override {}
  void pod_preempted(PodId) override {}
  void capacity_changed() override {}
};

}  // namespace fleetsim
