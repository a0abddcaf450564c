// A node autoscaler: hears of pods that no node can take and brings nodes for them (Karpenter,
// which EKS Auto Mode runs too, or the Cluster Autoscaler).
#pragma once

#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

class Provisioner {
 public:
  virtual ~Provisioner() = default;
  // The run starts: anything it runs on a clock begins.
  virtual void start() {}
  // kube-scheduler found no node for the pod.
  virtual void pod_unschedulable(PodId pod) = 0;
  // A scripted apply replaces the NodePools (EC2NodeClasses) it names and adds the others.
  virtual void apply_nodepools(const std::vector<NodePool>& pools) = 0;
  virtual void apply_node_classes(const std::vector<EC2NodeClass>& classes) = 0;
};

}  // namespace fleetsim
