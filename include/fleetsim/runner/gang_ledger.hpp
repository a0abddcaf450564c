// What partial gangs cost: GPU nodes kept idle for a gang whose pods could not all start.
#pragma once

#include <cstdint>
#include <map>

#include "fleetsim/cloudprovider/node_pricing.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// A node is held by a partial gang from the moment a gang's pod waits at Permit on it while no
// pod is bound there (kube-scheduler assumed the pod; nothing runs) until a pod is bound there
// (the gang gathered, or another pod came) or the node stops billing. Time after a Permit
// timeout counts too: the node still stands idle for the gang, whose pods come back to it. The
// held time's GPUs are the idle GPU-hours; its price (instance, EBS and fee, as the node's
// rates stand when the hold ends) their cost.
class GangLedger {
 public:
  explicit GangLedger(const NodePricing& pricing) : pricing_(pricing) {}

  void waiting(const Node& node, SimTime now);
  void bound(const Node& node, SimTime now);
  // The node's billing ended at `stopped` (its termination, or an earlier shutting-down).
  void gone(const Node& node, SimTime stopped);
  void end(const Cluster& cluster, SimTime end);
  void timed_out(std::int32_t pods) {
    ++timeouts_;
    rejected_ += pods;
  }

  double idle_gpu_hours() const { return idle_gpu_seconds_ / 3600.0; }
  double idle_usd() const { return idle_usd_; }
  double held_node_hours() const { return held_seconds_ / 3600.0; }
  std::int64_t timeouts() const { return timeouts_; }
  std::int64_t pods_rejected() const { return rejected_; }
  std::int64_t permit_waits() const { return waits_; }

 private:
  void close(const Node& node, SimTime until);

  const NodePricing& pricing_;
  std::map<NodeId, SimTime> held_;  // held nodes, since when
  double idle_gpu_seconds_ = 0.0;
  double held_seconds_ = 0.0;
  double idle_usd_ = 0.0;
  std::int64_t timeouts_ = 0;
  std::int64_t rejected_ = 0;
  std::int64_t waits_ = 0;
};

}  // namespace fleetsim
