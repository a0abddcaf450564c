// Deleting a node the Kubernetes way: cordon, evict its pods, then stop the instance.
#pragma once

#include <string_view>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"

namespace fleetsim {

// Shared by every controller that removes nodes (Karpenter's disruption and interruption
// handling; a Cluster Autoscaler's scale-down).
class NodeTermination {
 public:
  NodeTermination(Simulation& sim, Cluster& cluster, ClusterBus& bus, CloudProvider& cloud)
      : sim_(sim), cluster_(cluster), bus_(bus), cloud_(cloud) {}

  // Cordons the node and evicts its pods now, in bind order (each goes back to its controller,
  // which replaces it); the instance terminates once `drain` has passed. A node already going
  // is left alone.
  void delete_node(NodeId node, std::string_view reason, SimDuration drain);

 private:
  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  CloudProvider& cloud_;
};

}  // namespace fleetsim
