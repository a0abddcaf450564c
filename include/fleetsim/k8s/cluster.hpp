// The cluster's state during a run: nodes (with their NodeClaims) and pods.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/capacity_type.hpp"
#include "fleetsim/k8s/gpu_setup.hpp"
#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/k8s/paged_index.hpp"
#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/k8s/reasons.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"
#include "fleetsim/k8s/workloads.hpp"

namespace fleetsim {

using NodeId = std::uint32_t;
using PodId = std::uint32_t;
using WorkloadId = std::uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

// A NodeClaim and its node, launch to termination (Karpenter's lifecycle conditions).
enum class NodePhase : std::uint8_t {
  Launching,    // the fleet request is in flight
  Launched,     // the instance runs; billing has started; kubelet not yet joined
  Registered,   // the node object exists; not Ready or GPUs not advertised yet
  Initialized,  // Ready, startup taints gone, extended resources advertised: pods bind
  Deleting,     // cordoned and draining
  Terminated,
};

// Who launched a node and answers for it: a Karpenter NodePool (its NodeClaim's) or an eksctl
// node group (an Auto Scaling group's instance, which Karpenter never disrupts).
struct NodePoolOwner {
  std::uint32_t pool = 0;  // index into the run's NodePools
  std::string name;
};
struct NodeGroupOwner {
  std::string name;
};
using NodeOwner = std::variant<NodePoolOwner, NodeGroupOwner>;

struct Node {
  NodeId id = 0;
  std::string name;
  NodeOwner owner;
  std::uint32_t type = 0;  // catalog index
  std::string instance_type;
  CapacityType capacity_type = CapacityType::OnDemand;
  // Launched on-demand though its NodeClaim allowed spot: its types' spot offerings were out of
  // capacity or cached unavailable.
  bool spot_fallback = false;
  std::string zone;
  // The scenario's reservation it runs in (Catalog::reservations()), or -1: its instance is
  // billed by the reservation, not by the hour.
  std::int32_t reservation = -1;
  double price_per_hour = 0.0;
  // Its NodePool's NodeOverlay price for its offering: the price Karpenter chose it at, and the
  // one the cost report bills (a Savings Plan or EDP discount); None: the cloud's price.
  OverlayPrice price_overlay;
  NodePhase phase = NodePhase::Launching;
  bool initialized = false;  // reached Initialized (stays true while deleting)
  SimTime created{};         // the NodeClaim was created
  SimTime billed_from{};     // the instance started running
  SimTime initialized_at{};
  SimTime deleting_at{};
  SimTime terminates_at{};  // once deleting: when the instance goes (the end of the drain)
  SimTime terminated_at{};
  // Karpenter's consolidateAfter clock: the NodeClaim's LastPodEventTime (a non-DaemonSet pod
  // bound, terminating or terminal, at most one update per 10 s), else the Initialized time.
  SimTime last_pod_event{};
  bool pod_event_recorded = false;  // LastPodEventTime is set
  // Karpenter called cloudProvider.Delete (the NodeClaim's InstanceTerminating): the node no
  // longer counts in its NodePool's disruption budgets.
  bool instance_terminating = false;
  // When EC2 stopped billing it: the instance's shutting-down (TerminateInstances) or its end.
  SimTime billing_stopped_at = kNever;
  // karpenter.sh/do-not-disrupt: "true" from its NodePool's template annotations.
  bool do_not_disrupt = false;
  NodeDeletionReason termination_reason = NodeDeletionReason::None;
  Requirements labels;        // single-valued: the node's labels
  std::vector<Taint> taints;  // NodePool taints (startup taints are gone once initialized)
  // Its NodeClaim's (or node group template's) allocatable until it initializes, then what its
  // GPUs advertise once configured (gpu_setup).
  Resources allocatable;
  NodeGpuSetup gpu_setup;
  // Beside gpu_setup.dra_devices once its GPUs are configured: 1 where a claim holds the device.
  std::vector<std::uint8_t> dra_allocated;
  Resources daemon_overhead;    // DaemonSet pods, present from registration
  Resources requested;          // bound pods (not DaemonSets)
  Resources scoring_requested;  // bound pods as kube-scheduler's scoring counts them
  std::vector<PodId> pods;      // bound, in bind order
  std::int64_t ebs_bytes = 0;
  double ebs_price_per_hour = 0.0;

  bool is_live() const { return phase != NodePhase::Deleting && phase != NodePhase::Terminated; }
  // Its NodePool, or null for a node group's node.
  const NodePoolOwner* nodepool() const { return std::get_if<NodePoolOwner>(&owner); }
  // Its node group, or null for a NodeClaim's node.
  const NodeGroupOwner* node_group() const { return std::get_if<NodeGroupOwner>(&owner); }
  // Its NodePool's or node group's name.
  const std::string& owner_name() const {
    return std::visit([](const auto& o) -> const std::string& { return o.name; }, owner);
  }
  // Tainted karpenter.sh/disrupted:NoSchedule: a disruption command holds it, waiting for a
  // replacement before it is deleted.
  bool marked_for_disruption() const;
  Resources available() const { return allocatable - daemon_overhead - requested; }
};

enum class PodPhase : std::uint8_t {
  Pending,    // not bound; may be nominated to a node
  Running,    // bound to an initialized node
  Succeeded,  // ran to completion
  Deleted,    // evicted or scaled away; a controller may have replaced it
};

struct Pod {
  PodId id = 0;
  std::string name;
  WorkloadId workload = 0;
  const PodSpec* spec = nullptr;
  const Labels* labels = nullptr;
  std::string namespace_name;
  std::string uid;
  SimTime created{};
  PodPhase phase = PodPhase::Pending;
  NodeId node = kNoNode;       // bound node
  NodeId nominated = kNoNode;  // the node Karpenter planned it for
  // status.nominatedNodeName: the node where kube-scheduler preempted pods for it, while it
  // waits for them to go. Provisioners leave such a pod alone.
  NodeId nominated_node_name = kNoNode;
  SimTime bound_at{};
  // Containers started (the image was pulled): Kubernetes' phase Running. Pods without a
  // modelled start-up start and turn Ready when bound.
  bool started = false;
  bool ready = false;
  SimTime ready_at{};                   // the Ready condition's last transition to True
  bool terminating = false;             // deleted by its controller, finishing its grace period
  bool preempted = false;               // deleted by kube-scheduler's preemption (terminating)
  std::optional<SimDuration> run_time;  // nullopt: runs until deleted
  std::string pending_reason;           // from the last solve that could not place it
  // Held at kube-scheduler's PreEnqueue (its gang is short of pods, or its PodGroup is missing):
  // never tried, so it has no PodScheduled=False condition and no provisioner acts for it
  // (Karpenter's IsProvisionable, the Cluster Autoscaler's unschedulable pod lister).
  bool gated = false;
  // Assumed on this node by kube-scheduler and waiting at Permit for its gang: not bound, so no
  // controller sees it on the node, but kube-scheduler keeps its room there.
  NodeId permit_node = kNoNode;
  std::uint32_t holds = 0;  // readers that need it after it ends (Cluster::hold)
};

// A Deployment, Job or bare Pod: the unit cost and pods are attributed to.
struct WorkloadRecord {
  std::string name;
  WorkloadKind kind = WorkloadKind::Pod;
  std::string namespace_name;
};

// The pods of a map from ids to pods, as a range of Pod. (Written out: clang 14, which the fuzz
// build uses, cannot compile libstdc++ 12's std::views::values.)
class PodRange {
 public:
  using Map = std::map<PodId, Pod>;
  class iterator {
   public:
    explicit iterator(Map::const_iterator it) : it_(it) {}
    const Pod& operator*() const { return it_->second; }
    const Pod* operator->() const { return &it_->second; }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    friend bool operator==(const iterator&, const iterator&) = default;

   private:
    Map::const_iterator it_;
  };
  explicit PodRange(const Map& pods) : pods_(&pods) {}
  iterator begin() const { return iterator(pods_->begin()); }
  iterator end() const { return iterator(pods_->end()); }
  std::size_t size() const { return pods_->size(); }
  bool empty() const { return pods_->empty(); }

 private:
  const Map* pods_;
};

// The one owner of cluster state: controllers read it freely and change it only through these
// methods, so every transition keeps the pending and active indexes and the node totals right.
// How long Karpenter's consolidation state holds without a change (state/cluster.go).
inline constexpr SimDuration kConsolidationStateTtl = minutes(5);

// Karpenter's podevents controller writes LastPodEventTime at most once per 10 s
// (nodeclaim/podevents/controller.go dedupeTimeout).
inline constexpr SimDuration kPodEventDedupe = seconds(10);

// A ResourceClaim's allocation (its status.allocation and reservedFor, counted): the node and
// the devices (indexes into its gpu_setup.dra_devices) it holds while pods use it.
struct DraAllocation {
  NodeId node = kNoNode;
  std::vector<std::uint32_t> devices;
  std::int32_t pods = 0;
};

class Cluster {
 public:
  Cluster() = default;
  // index_ points into pods_'s nodes, which a move keeps and a copy would not.
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  Cluster(Cluster&&) = default;
  Cluster& operator=(Cluster&&) = default;
  // The workloads not yet forgotten (a finished Job is, once its pods are released), by id.
  const std::map<WorkloadId, WorkloadRecord>& workloads() const { return workloads_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // The pods not yet released, by id (creation order).
  PodRange pods() const { return PodRange(pods_); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const Pod& pod(PodId id) const { return at(id); }
  // Null once the pod has been released (collect()).
  const Pod* find_pod(PodId id) const;
  // The id the next pod gets: the count of pods ever created.
  PodId next_pod_id() const { return next_pod_id_; }

  // Pods waiting for a node, by id (creation order); nodes not yet terminated, by id. Kept
  // incrementally so per-pass work scales with what is live, not with the run's history.
  const std::vector<PodId>& pending_pods() const { return pending_; }
  const std::vector<NodeId>& active_nodes() const { return active_; }
  // Bound pods that hold a required pod anti-affinity term (kube-scheduler checks every pod
  // against them only while there are some).
  std::size_t bound_with_anti_affinity() const { return bound_with_anti_affinity_; }
  // Karpenter's consolidation state (state/cluster.go ConsolidationState): the time of the last
  // change that may let consolidation find something new (a node added, initialized, being
  // deleted or gone, a pod bound or deleted, a NodePool changed: MarkUnconsolidated's callers),
  // or of the reset a read does once 5 minutes pass without one.
  SimTime consolidation_state(SimTime now) const;
  // What consolidation_state(now) would return, without the read: nullopt when that read would
  // reset the state (so that a caller may skip work without moving the 5-minute reset).
  std::optional<SimTime> peek_consolidation_state(SimTime now) const;
  void mark_unconsolidated(SimTime now);
  // The lowest priority of any pod bound so far (never raised as pods go): kube-scheduler tries
  // preemption only for a pod above it, so a cluster of one priority never does.
  std::int32_t lowest_bound_priority() const { return lowest_bound_priority_; }
  // Bound pods with any pod affinity or anti-affinity term, required or preferred.
  std::size_t bound_with_affinity_terms() const { return bound_with_affinity_terms_; }
  // Changes whenever nodes or pods do (Karpenter's consolidation state): a consolidation pass
  // that found nothing need not run again until it changes.
  std::uint64_t revision() const { return revision_; }
  // Changes whenever a pod is created, ends, turns Ready or unready, or starts terminating: what
  // a PodDisruptionBudget's status counts.
  std::uint64_t pod_status_revision() const { return pod_status_revision_; }

  // ---- Workloads, nodes and pods come into being ----
  WorkloadId add_workload(WorkloadRecord record);
  void remove_workload(WorkloadId workload) { workloads_.erase(workload); }
  NodeId add_node(Node n);
  PodId add_pod(Pod p);

  // ---- Node lifecycle (launch → registered → initialized → deleting → terminated) ----
  // The instance runs and is billed from now.
  void node_launched(NodeId node, SimTime now);
  void node_registered(NodeId node);
  // Ready with its extended resources advertised: pods may bind. consolidateAfter counts from
  // here when no pod came.
  void node_initialized(NodeId node, SimTime now);
  // Its GPUs are configured (NodeGpuSetup): it advertises what they offer from now on.
  void configure_gpus(NodeId node);
  // Cordoned and draining until `terminates_at`.
  void begin_node_deletion(NodeId node, SimTime now, SimTime terminates_at,
                           NodeDeletionReason reason);
  // Karpenter asked the cloud provider to terminate the instance (InstanceTerminating): it is
  // shutting down, and EC2 bills no more ("you stop incurring charges for an instance as soon as
  // its state changes to shutting-down or terminated").
  void instance_terminating(NodeId node, SimTime now);
  // The instance is gone: the node leaves active_nodes().
  void node_terminated(NodeId node, SimTime now);
  // The instance's hourly price changed (a spot price trace).
  void set_node_price(NodeId node, double price) { nodes_[node].price_per_hour = price; }
  // A disruption command taints the node karpenter.sh/disrupted:NoSchedule (no new pods), or
  // gives it back when the command fails.
  void mark_for_disruption(NodeId node);
  void unmark_for_disruption(NodeId node);

  // ---- Dynamic Resource Allocation (dra_allocation.cpp) ----
  // Whether every ResourceClaim of the pod can be allocated on the node now: a claim already
  // allocated (a shared one another pod holds) pins the pod to its node; the others take free
  // devices the node publishes, first fit in name order. `picks`, when given, gets each claim's
  // devices (empty for one already allocated). The caller skips pods without claims.
  bool dra_fits(const Pod& pod, const Node& node,
                std::vector<std::vector<std::uint32_t>>* picks = nullptr) const;
  // The allocated claims by key ("<namespace>/<claim>" for a ResourceClaim, "<pod uid>/<name>"
  // for a template's), in key order.
  const std::map<std::string, DraAllocation, std::less<>>& dra_claims() const {
    return dra_claims_;
  }

  // ---- Pod lifecycle ----
  // Binds a pending pod to a node; the caller checked that it fits.
  void bind(PodId pod, NodeId node, SimTime now);
  // Removes a pod from its node and ends it (completion, eviction, deletion).
  // A Deleted pod's object is gone now (Karpenter's state marks the cluster unconsolidated), or,
  // with `object_lingers`, later: an evicted pod that is Terminating until its grace ends, whose
  // deletion the caller reports with mark_unconsolidated then.
  void finish(PodId pod, PodPhase phase, SimTime now, bool object_lingers = false);
  // Takes a pending pod out of the queue and ends it (its controller deleted it).
  void delete_pending(PodId pod);
  void nominate(PodId pod, NodeId node) { at(pod).nominated = node; }
  // kube-scheduler's nomination (status.nominatedNodeName); kNoNode clears it.
  // Both change what a scheduling simulation takes as pending: a revision each.
  void set_nominated_node_name(PodId pod, NodeId node) {
    ++revision_;
    at(pod).nominated_node_name = node;
  }
  void set_gated(PodId pod, bool gated) {
    ++revision_;
    at(pod).gated = gated;
  }
  void set_permit_node(PodId pod, NodeId node) { at(pod).permit_node = node; }
  void set_pending_reason(PodId pod, std::string reason) {
    at(pod).pending_reason = std::move(reason);
  }
  // Nominations to a node that is going away are void.
  void clear_nominations_to(NodeId node);
  void pod_started(PodId pod) { at(pod).started = true; }
  void pod_ready(PodId pod, SimTime now);
  // It leaves the endpoints (draining, or about to exit).
  void pod_unready(PodId pod) {
    ++pod_status_revision_;
    at(pod).ready = false;
  }
  // Its controller deleted it: it finishes its grace period before it leaves the node. A pod
  // event for Karpenter's consolidateAfter clock.
  void pod_terminating(PodId pod, SimTime now);
  // kube-scheduler deleted it to make room for a higher-priority pod: terminating as above.
  void pod_preempted(PodId pod, SimTime now);

  // ---- Memory: a run's state stays flat in the number of pods it has seen ----
  // A component that keeps reading a pod after it ends (a replica draining on a gone node) holds
  // it; every hold is released.
  void hold(PodId pod) { ++at(pod).holds; }
  void release(PodId pod);
  // Forgets the pods that ended (Succeeded or Deleted) and that nobody holds; returns the
  // workloads they belonged to, one entry per pod. Call between events, when no one is in the
  // middle of reading them.
  std::vector<WorkloadId> collect();

 private:
  void unbind(PodId pod, SimTime now);
  // A pod of `node` was bound, went terminating or terminal (podevents' predicate).
  void pod_event(Node& node, const Pod& pod, SimTime now);
  Pod& at(PodId id);
  const Pod& at(PodId id) const;
  void ended(PodId pod);
  void allocate_claims(const Pod& pod, Node& node);
  void deallocate_claims(const Pod& pod);

  std::vector<PodId> pending_;
  std::vector<NodeId> active_;
  std::map<WorkloadId, WorkloadRecord> workloads_;
  WorkloadId next_workload_id_ = 0;
  std::vector<Node> nodes_;
  std::map<PodId, Pod> pods_;  // node-based: a Pod's address is stable while it exists
  // Lookups only, never iterated: pods_ in id order is what callers walk.
  PagedIndex<PodId, Pod> index_;
  std::size_t bound_with_anti_affinity_ = 0;
  std::size_t bound_with_affinity_terms_ = 0;
  std::int32_t lowest_bound_priority_ = INT32_MAX;
  mutable SimTime consolidation_state_{};  // a read past its 5 minutes resets it, as upstream
  PodId next_pod_id_ = 0;
  std::vector<PodId> ended_;  // ended since the last collect, held or not
  std::uint64_t revision_ = 0;
  std::uint64_t pod_status_revision_ = 0;
  std::map<std::string, DraAllocation, std::less<>> dra_claims_;
};

// The key a pod's claim is allocated under (Cluster::dra_claims).
std::string dra_claim_key(const Pod& pod, const PodResourceClaim& claim);

// Inline: controllers look pods up by id in their loops.
inline Pod& Cluster::at(PodId id) {
  Pod* pod = index_.find(id);
  FLEETSIM_ASSERT(pod != nullptr);
  return *pod;
}

inline const Pod& Cluster::at(PodId id) const {
  const Pod* pod = index_.find(id);
  FLEETSIM_ASSERT(pod != nullptr);
  return *pod;
}

inline const Pod* Cluster::find_pod(PodId id) const { return index_.find(id); }

}  // namespace fleetsim
