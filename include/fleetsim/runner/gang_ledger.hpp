// What partial gangs cost: GPU nodes kept idle for a gang whose pods could not all start.
#pragma once

#include <cstdint>
#include <map>

#include "fleetsim/cloudprovider/node_pricing.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/runner/run_result.hpp"

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
    ++totals_.permit_timeouts;
    totals_.pods_rejected += pods;
  }

  const GangsResult& totals() const { return totals_; }

 private:
  void close(const Node& node, SimTime until);

  const NodePricing& pricing_;
  std::map<NodeId, SimTime> held_;  // held nodes, since when
  GangsResult totals_;
};

}  // namespace fleetsim
