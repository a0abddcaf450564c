// Karpenter's CapacityBuffer controller and virtual pod cache (core:pkg/controllers/capacitybuffer,
// pkg/state/virtualpods): each buffer's pods as the provisioner injects them into every solve.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/capacity_buffer.hpp"
#include "fleetsim/scheduling/solve_types.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

// A solve's pod index that maps to no pod of the cluster: a CapacityBuffer's virtual pod.
inline constexpr PodId kVirtualPod = UINT32_MAX;

// Whose buffer controller computes status.replicas: they differ only where `limits` name no
// resource the pod requests (Karpenter's calculateLimitReplicas ignores the limits; the
// Cluster Autoscaler's calculateMaxPodsFromLimits fails the buffer: no pods), and in which
// strategies inject pods (Karpenter: every buffer; the Cluster Autoscaler's pod list processor:
// buffer.x-k8s.io/active-capacity, the CRD's default, only).
enum class BufferRules : std::uint8_t { Karpenter, ClusterAutoscaler };

// Karpenter's controller reconciles each buffer when the run starts and again every 30 s (its
// RequeueAfter; the Cluster Autoscaler reconciles at each of its loops): it resolves the
// scalableRef's Deployment (ReadyForProvisioning is False while none exists), computes
// status.replicas from the Deployment's spec.replicas, rebuilds the buffer's virtual pods from the
// Deployment's current pod template and triggers the provisioner. Virtual pods never exist in the
// cluster: they are solved for, never bound nor nominated.
class CapacityBufferController final : private EventHandler {
 public:
  static constexpr SimDuration kRequeue = seconds(30);

  CapacityBufferController(Simulation& sim, const WorkloadController& workloads,
                           std::vector<CapacityBuffer> buffers, std::function<void()> trigger,
                           BufferRules rules = BufferRules::Karpenter);

  // The first reconcile at `first`, then every kRequeue.
  void start(SimTime first);
  // GetAll: every ready buffer's virtual pods, buffers in input order.
  std::span<const PendingPod> virtual_pods() const { return pods_; }
  // status.replicas of buffer i as last reconciled (0 while it is not ready).
  std::int32_t status_replicas(std::size_t buffer) const { return entries_[buffer].replicas; }
  // Changes whenever virtual_pods() changes, so a cached snapshot knows to take them again.
  std::uint64_t generation() const { return generation_; }

  // Reconciles every buffer now (the timer's work).
  void reconcile(SimTime now);

 private:
  struct Entry {
    CapacityBuffer buffer;
    std::int32_t replicas = 0;
    const PodTemplate* pod_template = nullptr;  // nullptr: not ready
    std::vector<std::string> uids;              // "<buffer uid>-<i>", i from 1 (BuildVirtualPods)
    SimTime built{};                            // the virtual pods' creation time
  };
  void on_event(SimTime now, std::uint64_t tag) override;

  Simulation& sim_;
  const WorkloadController& workloads_;
  std::vector<Entry> entries_;
  std::vector<PendingPod> pods_;
  std::function<void()> trigger_;
  BufferRules rules_;
  std::uint64_t generation_ = 0;
};

}  // namespace fleetsim
