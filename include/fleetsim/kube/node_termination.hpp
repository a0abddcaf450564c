// Deleting a node the Kubernetes way: cordon, evict its pods, then stop the instance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"

namespace fleetsim {

// Karpenter's eviction queue retries a refused eviction after 100 ms, doubling up to 10 s
// (node/termination/terminator/eviction.go).
inline constexpr SimDuration kEvictionBaseDelay = millis(100);
inline constexpr SimDuration kEvictionMaxDelay = seconds(10);

// How a drain may end early: the NodePool's terminationGracePeriod (a pod still there is deleted
// at TGP − its own grace period, whatever blocks it, and the instance goes at TGP), and the time
// the instance stops whatever is left (a spot interruption's two minutes).
struct DrainLimits {
  std::optional<SimDuration> termination_grace_period;
  SimTime instance_stops = kNever;
};

// Shared by every controller that removes nodes (Karpenter's disruption and interruption
// handling; a Cluster Autoscaler's scale-down).
class NodeTermination : private EventHandler {
 public:
  NodeTermination(Simulation& sim, Cluster& cluster, ClusterBus& bus, CloudProvider& cloud,
                  const PodDisruptionBudgets& pdbs)
      : sim_(sim), cluster_(cluster), bus_(bus), cloud_(cloud), pdbs_(pdbs) {}

  // Cordons the node and drains it as Karpenter's terminator does: pods are evicted through the
  // eviction API (PodDisruptionBudgets respected; refused evictions retried), non-critical pods
  // before system-critical ones; pods with an active karpenter.sh/do-not-disrupt are left to
  // finish on their own. Each evicted pod goes back to its controller at once and keeps running
  // for its grace period; the instance terminates when the last has gone, or at the limits. A
  // node already going is left alone.
  void delete_node(NodeId node, NodeDeletionReason reason, DrainLimits limits = {});

 private:
  struct Drain {
    NodeDeletionReason reason = NodeDeletionReason::None;
    SimTime tgp_deadline = kNever;  // deleting + terminationGracePeriod
    SimTime deadline = kNever;      // the instance goes then at the latest
    SimTime last_exit{};            // when the last evicted pod's grace period ends
    SimDuration backoff = kEvictionBaseDelay;
  };

  void on_event(SimTime now, std::uint64_t tag) override;
  // Evicts what may go now; then terminates the instance or schedules the next attempt.
  void step(NodeId node, SimTime now);
  void evict(PodId pod, NodeId node, Drain& drain, SimTime now);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  CloudProvider& cloud_;
  const PodDisruptionBudgets& pdbs_;
  std::map<NodeId, Drain> drains_;  // nodes with pods still to evict
};

}  // namespace fleetsim
