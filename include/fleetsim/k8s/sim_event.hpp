// The typed events a run emits; the runner records them and report/ writes events.jsonl.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/capacity_type.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/reasons.hpp"

namespace fleetsim {

enum class EventKind : std::uint8_t {
  NodeClaimCreated,  // Karpenter's NodeClaim for a batch: its pods and instance types
  NodeLaunched,      // the instance runs and is billed (node fields, price)
  NodeRegistered,    // the kubelet joined
  NodeReady,         // initialized: Ready with GPUs advertised
  NodeDeleting,      // cordoned and draining (reason)
  NodeTerminated,    // the instance is gone (reason)
  LaunchFailed,      // no offering had capacity (message)
  PodCreated,
  PodNominated,  // Karpenter planned the pod onto a node or a new NodeClaim
  PodScheduled,  // bound to a node
  PodReady,      // a serving pod's readiness probe passed
  PodCompleted,
  PodEvicted,        // reason
  PodDeleted,        // its controller removed it (reason), after any grace
  PodUnschedulable,  // a solve found no place (message), emitted when it changes
  PodPreempted,  // kube-scheduler deleted it for a higher-priority pod (message: that pod's name)
  SpotInterruptionNotice,       // two minutes before termination
  SpotRebalanceRecommendation,  // EC2's early warning of elevated risk (reason: the action taken)
  WorkloadCreated,              // a Deployment, Job or Pod manifest, or a job from a trace
  WorkloadCompleted,            // a Job's last completion, or a bare Pod's success
  ReplicasChanged,              // a Deployment's replicas were set (reason: who set them)
  DisruptionDecision,           // Karpenter started a disruption command (decision; reason: budget)
  CapacityChanged,              // an offering's capacity was set (the offering's fields)
  SpotPriceChanged,             // an offering's price changed (the offering's fields, price)
  ScaleUp,                      // the Cluster Autoscaler grew node groups (scale_up)
  ScaleUpFailed,                // a scale-up found no capacity or timed out (node_group, reason)
  ScaleDownCandidate,           // the Cluster Autoscaler found a node unneeded (message)
  // Karpenter's last solve placed a different number of CapacityBuffer virtual pods on an
  // existing node (to: how many now; state.Cluster's bufferPodCounts).
  NodeBufferPods,
  // A container exited as it started (message: why, and the back-off before the kubelet starts
  // it again: CrashLoopBackOff).
  PodCrashed,
  // kube-scheduler assumed a gang's pod on a node and holds it at Permit until minCount pods of
  // its PodGroup are assumed or bound (node: where; message: the PodGroup).
  PodWaitingOnPermit,
  // A pod held at Permit was rejected (node: where it was assumed; message: why): its PodGroup's
  // wait timed out, or the node went away.
  PodPermitRejected,
  // A PodGroup's Permit wait timed out before minCount pods were assumed or bound (workload: its
  // first rejected pod's; message: the PodGroup; pods: how many were rejected).
  PodGroupTimeout,
};

std::string_view to_string(EventKind k);

// What an event is about: a node (or NodeClaim), a pod, or a workload.
enum class EventSubject : std::uint8_t { Node, Pod, Workload, Command, Offering, NodeGroup };
EventSubject subject_of(EventKind k);

// The payloads and reasons only one module emits are declared by that module:
struct DisruptionDecision;                  // disruption/disruption_decision.hpp
struct ScaleUpDecision;                     // provisioning/cluster_autoscaler/scale_up_decision.hpp
enum class ScaleUpFailure : std::uint8_t;   // provisioning/cluster_autoscaler/scale_up_decision.hpp
enum class RebalanceAction : std::uint8_t;  // cloudprovider/aws/spot_market.hpp

// Why, for the kinds that say: each kind has a reason type of its own (report/ spells them).
using EventReason = std::variant<std::monostate, NodeDeletionReason, PodDeletionReason,
                                 DisruptionReason, ReplicasSource, ScaleUpFailure, RebalanceAction>;

// One event. Which fields are set depends on the kind; ids index the Cluster. Pod events carry
// the node the pod is (or was, for completion and eviction) bound or nominated to.
struct SimEvent {
  SimTime time{};
  EventKind kind = EventKind::PodCreated;
  NodeId node = kNoNode;
  PodId pod = UINT32_MAX;
  WorkloadId workload = UINT32_MAX;
  EventReason reason{};
  // PodUnschedulable, LaunchFailed, ScaleDownCandidate: what was found, in words (valid during
  // the callback only).
  std::string_view message{};
  std::int32_t from = 0;  // ReplicasChanged: the replicas before and after
  std::int32_t to = 0;
  const DisruptionDecision* decision = nullptr;  // DisruptionDecision only
  // NodeClaimCreated: the claim's instance types, cheapest first, and the pods nominated to it.
  std::span<const std::string> instance_types{};
  std::int32_t pods = 0;
  // CapacityChanged, SpotPriceChanged: the offering, and its capacity (nullopt: unlimited) or
  // hourly price from now on.
  std::string_view instance_type{};
  std::string_view zone{};
  CapacityType capacity_type = CapacityType::Spot;
  std::optional<std::int64_t> capacity{};
  double price = 0.0;
  std::string_view node_group{};              // ScaleUpFailed
  const ScaleUpDecision* scale_up = nullptr;  // ScaleUp only
};

// Receives every event as it happens, in time order. Observers must not change the cluster.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const SimEvent& e, const Cluster& cluster) = 0;
  // Every report interval (t = interval, 2×interval, …), after all controllers acted.
  virtual void on_interval(SimTime /*now*/, const Cluster& /*cluster*/) {}
  // Once, when the run reaches its end time.
  virtual void on_end(SimTime /*end*/, const Cluster& /*cluster*/) {}
};

}  // namespace fleetsim
