// Deleting a node the Kubernetes way: cordon, evict its pods, then stop the instance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"
#include "fleetsim/kube/api_latency.hpp"
#include "fleetsim/kube/termination_settings.hpp"

namespace fleetsim {

// Karpenter's eviction queue retries a refused eviction after 100 ms, doubling up to 10 s
// (node/termination/terminator/eviction.go).
inline constexpr SimDuration kEvictionBaseDelay = millis(100);
inline constexpr SimDuration kEvictionMaxDelay = seconds(10);
// Karpenter's termination controller (node/termination/controller.go): the drain is looked at
// every second, and once the instance is being terminated, every 5 s until it is gone.
inline constexpr SimDuration kDrainPollInterval = seconds(1);
inline constexpr SimDuration kInstancePollInterval = seconds(5);

// How a drain may end early: the NodePool's terminationGracePeriod (a pod still there is deleted
// at TGP − its own grace period, whatever blocks it, and the instance goes at TGP), and the time
// the instance stops whatever is left (a spot interruption's two minutes).
struct DrainLimits {
  std::optional<SimDuration> termination_grace_period;
  SimTime instance_stops = kNever;
};

// Shared by every controller that removes nodes (Karpenter's disruption and interruption
// handling; a Cluster Autoscaler's scale-down). A NodePool's node goes through Karpenter's
// termination controller; a node group's is drained and its instance terminated once its pods
// are gone, without Karpenter's polls or MinDrainTime.
class NodeTermination final : private EventHandler {
 public:
  NodeTermination(Simulation& sim, Cluster& cluster, ClusterBus& bus, CloudProvider& cloud,
                  const PodDisruptionBudgets& pdbs, TerminationSettings settings = {});

  // Cordons the node and drains it as Karpenter's terminator does: pods are evicted through the
  // eviction API (PodDisruptionBudgets respected; refused evictions retried), non-critical pods
  // before system-critical ones (which wait until no other pod object is left); pods with an
  // active karpenter.sh/do-not-disrupt are left to finish on their own. An evicted pod goes
  // back to its controller once the Eviction call returns and keeps running for its grace
  // period; its object is deleted then (another API call). A NodePool's node: the NodeClaim and
  // Node deletions come first; the drain is polled every second and is Drained once no pod is
  // left and MinDrainTime has passed; the instance is then terminating (out of the disruption
  // budgets' counts) and gone at the next 5 s poll. At the limits the instance goes at once. A
  // node already going is left alone. Volume detachment is not modelled.
  void delete_node(NodeId node, NodeDeletionReason reason, DrainLimits limits = {});

 private:
  // Evicted: an eviction call arrived; ObjectGone: an evicted pod's object was deleted.
  enum class Step : std::uint8_t { Poll, Retry, Evicted, ObjectGone };
  using Tag = EventTag<Step>;
  struct Drain {
    NodeDeletionReason reason = NodeDeletionReason::None;
    bool karpenter = false;          // a NodePool's node: Karpenter's termination steps
    SimTime tgp_deadline = kNever;   // deleting + terminationGracePeriod
    SimTime deadline = kNever;       // the instance goes then at the latest
    SimTime drain_started = kNever;  // Drained=Unknown (Karpenter)
    SimTime pods_gone{};             // when the last evicted pod's object is deleted
    SimTime non_critical_gone{};     // when the last evicted non-critical pod's object is
    int in_flight = 0;               // Eviction or delete calls not yet answered
    std::set<PodId> refused;         // refused by a PDB: retried on the back-off, not on polls
    bool retry_pending = false;
    SimDuration backoff = kEvictionBaseDelay;
  };

  void on_event(SimTime now, std::uint64_t tag) override;
  // Sends the evictions (and forced deletions) that may go now; a retry pass also resends the
  // refused ones.
  void evict_pass(NodeId node, Drain& d, SimTime now, bool retry);
  // An Eviction (or forced deletion) call returned: the pod is evicted unless a PDB refuses.
  void evicted(PodId pod, SimTime now);
  void evict(PodId pod, NodeId node, Drain& drain, SimTime now, bool gone_now);
  // No pod left and, for Karpenter, MinDrainTime passed.
  bool drained(NodeId node, const Drain& d, SimTime now) const;
  // The instance goes at `at`; the drain is over.
  void terminate(NodeId node, SimTime at);
  void schedule_retry(NodeId node, Drain& d, SimTime now, SimTime next_forced);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  CloudProvider& cloud_;
  const PodDisruptionBudgets& pdbs_;
  TerminationSettings settings_;
  ApiLatencyDraws api_;
  struct Call {
    NodeId node = kNoNode;
    bool forced = false;  // a deletion at terminationGracePeriod: no PDB can refuse it
  };
  std::map<NodeId, Drain> drains_;  // nodes still draining
  std::map<PodId, Call> calls_;     // Eviction or delete calls in flight, by pod
};

}  // namespace fleetsim
