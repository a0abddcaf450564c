// kube-scheduler's binding step: pending pods onto initialized nodes with room.
#pragma once

#include <functional>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"
#include "fleetsim/kube/gang_gate.hpp"
#include "fleetsim/kube/image_locality.hpp"
#include "fleetsim/kube/scheduler_profile.hpp"
#include "fleetsim/kube/scheduling_queue.hpp"
#include "fleetsim/kube/topology_spread.hpp"

namespace fleetsim {

// One pass per instant at most, over the pods its scheduling queue (scheduling_queue.hpp) holds
// active. Each pod is filtered as the default profile does (resources, taints, node selection,
// required pod (anti-)affinity, PodTopologySpread's DoNotSchedule constraints), its search
// starting where the last one stopped (nextStartNodeIndex) and stopping at the adaptive share of
// feasible nodes (numFeasibleNodesToFind, or the profile's percentageOfNodesToScore). With more
// than one feasible node they are scored with the pod's profile (spec.schedulerName; pods no
// profile names are left Pending), by default: NodeResourcesFit (LeastAllocated) 1,
// BalancedAllocation 1, TaintToleration 3, NodeAffinity 2, PodTopologySpread 2 (the pod's
// ScheduleAnyway constraints, or the system defaults for a Deployment's pods), InterPodAffinity
// 2, ImageLocality 1 (the images the kubelet pulled); ties go to a node drawn from a seeded
// stream. Karpenter's
// nomination is internal to Karpenter (v1 never sets status.nominatedNodeName), so it does not
// steer binding. A pod that fits nowhere may preempt lower-priority pods (default_preemption.cpp):
// it is then nominated to the node and waits there for them to go; the others are reported
// unschedulable, which triggers the provisioner.
class KubeScheduler final : private EventHandler {
 public:
  KubeScheduler(Simulation& sim, Cluster& cluster, ClusterBus& bus,
                std::function<void(PodId)> on_unschedulable,
                std::vector<SchedulerProfile> profiles = {SchedulerProfile{}});

  // Asks for a pass at the current instant (coalesced): new pods are tried.
  void request_pass();
  // Something that may help pods that fit nowhere happened (a node came up or changed, a pod
  // left): they are tried again, now or when their backoff ends.
  void cluster_changed();
  // Where ImageLocality reads the images each node holds (none: it scores no node).
  void set_node_images(const NodeImages* images) { node_images_ = images; }
  // The PDBs preemption tries not to violate (none: it sees no PDB).
  void set_pdbs(const PodDisruptionBudgets* pdbs) { pdbs_ = pdbs; }
  // Turns on the GangScheduling plugin (gang_gate.hpp): for scenarios whose pods name PodGroups.
  void enable_gangs() { gang_.enable(); }

 private:
  void on_event(SimTime now, std::uint64_t tag) override;
  bool feasible(const Pod& pod, const Node& node) const;
  // The node's room for the pod: what is free less the requests of the other pods nominated
  // there (status.nominatedNodeName) with its priority or higher
  // (RunFilterPluginsWithNominatedPods).
  Resources room_for(const Pod& pod, const Node& node) const;
  // The pod's requests fit the node's room_for it; and feasible() on its nominated node with
  // that room (both out of line: feasible() stays inlined into the binding loop).
  bool fits_beside_nominated(const Pod& pod, const Node& node) const;
  bool nominated_node_fits(const Pod& pod) const;
  // Whether the pod may preempt at all: a pod of lower priority may be bound, and its policy
  // allows it. False in a cluster of one priority, which keeps preemption off the binding path.
  // A pod with ResourceClaims does not preempt here: fleetsim does not simulate the devices its
  // victims' claims would free (upstream's DynamicResources does, in PostFilter's dry run).
  bool may_preempt(const Pod& pod) const {
    return pod.spec->priority > cluster_.lowest_bound_priority() &&
           pod.spec->preemption_policy != PreemptionPolicy::Never &&
           pod.spec->resource_claims.empty();
  }
  // The default preemption plugin (PostFilter) for a pod that fits nowhere, with the pass's
  // inter-pod affinity mask for it (null when not checked). True when the pod is nominated (it
  // waits for victims to go, and provisioners leave it alone); false when preemption cannot
  // help. Out of the binding loop, which it would make too big to inline its filters.
  bool post_filter(const Pod& pod, const SchedulerProfile& profile,
                   const std::vector<std::uint8_t>* affinity_mask, SimTime now);
  // Preempt: `passes` says whether a node's filters other than resources admit the pod.
  bool preempt(const Pod& pod, const SchedulerProfile& profile, SimTime now,
               const std::function<bool(NodeId)>& passes);
  void delete_victim(PodId victim, const Pod& preemptor, SimTime now);
  // The GangScheduling plugin's part of a pass: rejects the pods waiting at Permit whose group's
  // deadline came or whose node is going away, and marks the pods PreEnqueue holds.
  void gang_pass(SimTime now);
  // Reserve and Permit for a gang's pod placed on `node`: it waits, or its group binds. False
  // for a pod of no gang (the caller binds it).
  bool gang_permit(const Pod& pod, NodeId node, SimTime now);
  void bind_pod(PodId id, NodeId node, SimTime now);
  // A pod waiting at Permit goes back to the queue, unschedulable (timed out: only its group's
  // events or the leftover flush bring it back; its node going away: any event).
  void reject_waiting(PodId id, NodeId node, std::string_view why, bool timed_out, SimTime now);
  void order_nodes();
  static std::size_t nodes_to_find(std::size_t all, std::int32_t percentage);
  // Scores feasible_ and picks the best; kNoNode when there is none.
  NodeId select_host(const Pod& pod, const SchedulerProfile& profile,
                     const SpreadConstraints& spread);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  std::function<void(PodId)> on_unschedulable_;
  std::vector<SchedulerProfile> profiles_;
  const NodeImages* node_images_ = nullptr;
  const PodDisruptionBudgets* pdbs_ = nullptr;
  std::vector<PodId> nominated_;  // pods nominated by preemption, while pending
  RngStream preemption_rng_;      // the offset of the candidate search (GetOffsetAndNumCandidates)
  EventHandle pass_;
  RngStream rng_;  // ties among the best nodes
  SchedulingQueue queue_;
  GangGate gang_;
  EventHandle gang_wake_;
  SimTime gang_wake_at_{};
  EventHandle wake_;
  SimTime wake_at_{};
  std::size_t next_start_ = 0;  // nextStartNodeIndex: where the next search starts in order_
  // Scratch for one pass and one pod, kept between them.
  std::vector<const Pod*> pods_;
  std::vector<std::pair<std::string_view, std::vector<NodeId>>> zones_;
  std::vector<NodeId> order_;
  std::vector<NodeId> feasible_;
  std::vector<std::uint8_t> spread_mask_;
  std::vector<std::int64_t> scores_, totals_;
};

}  // namespace fleetsim
