// Why the cluster's objects change: the reasons the Cluster keeps and its events carry, as types
// so that a report bucket cannot move with a typo. report/ spells them (reason_names.hpp).
#pragma once

#include <cstdint>

namespace fleetsim {

// Why a node was deleted (and its pods evicted).
enum class NodeDeletionReason : std::uint8_t {
  None,  // not deleted by a controller (spelled "unknown")
  // Karpenter's disruption methods and its interruption handler.
  Expired,
  Drifted,
  Empty,
  Underutilized,
  SpotInterruption,
  // A reservation takes its instances back: a Capacity Block expiring (Karpenter AWS's
  // expiration controller) or an interruptible reservation reclaimed (its 2-minute notice).
  CapacityReservationInterruption,
  // The Cluster Autoscaler: an unneeded node with pods, an empty one, and an instance that did
  // not register within max-node-provision-time.
  ScaleDown,
  ScaleDownEmpty,
  ScaleUpTimedOut,
};

// Why a bound pod was deleted: its ReplicaSet scaled down (a Deployment's replicas fell, or a
// rollout retired an old ReplicaSet's pods), or kube-scheduler preempted it.
// AdmissionFailed: the kubelet's admission refused it (the device plugin's Allocate failed:
// UnexpectedAdmissionError) and it ended Failed; its controller replaces it.
enum class PodDeletionReason : std::uint8_t { ScaleDown, Preempted, AdmissionFailed };

// Who set a Deployment's replicas.
enum class ReplicasSource : std::uint8_t {
  Apply,     // a manifest applied by a scripted event
  Scripted,  // a scripted scale event
  Hpa,
  Keda,
};

}  // namespace fleetsim
