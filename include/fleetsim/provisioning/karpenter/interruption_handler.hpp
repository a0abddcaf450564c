// What Karpenter does when the cloud provider sends a notice (core interruption controller).
#pragma once

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// On a spot interruption notice Karpenter marks the offering unavailable (its unavailable-
// offerings cache) and deletes the NodeClaim at once: the pods get their termination grace
// period, cut short when the instance stops.
class InterruptionHandler final : public CloudNoticeListener {
 public:
  InterruptionHandler(const Cluster& cluster, CloudProvider& cloud, NodeTermination& termination)
      : cluster_(cluster), cloud_(cloud), termination_(termination) {}

  void on_cloud_notice(const CloudNotice& notice) override;

 private:
  const Cluster& cluster_;
  CloudProvider& cloud_;
  NodeTermination& termination_;
};

}  // namespace fleetsim
