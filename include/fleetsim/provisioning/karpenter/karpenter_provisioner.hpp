// Karpenter's provisioner: batches pending pods, solves, nominates and launches NodeClaims.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/provisioning/capacity_buffers.hpp"
#include "fleetsim/provisioning/karpenter/batcher.hpp"
#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"
#include "fleetsim/provisioning/karpenter/nodeclaim_launcher.hpp"
#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"
#include "fleetsim/provisioning/provisioner.hpp"
#include "fleetsim/scheduling/scheduler.hpp"

namespace fleetsim {

struct ProvisionerSettings {
  SimDuration batch_idle = seconds(1);  // BATCH_IDLE_DURATION
  SimDuration batch_max = seconds(10);  // BATCH_MAX_DURATION
  // Karpenter's pod controller re-triggers provisioning for pods still pending (10 s requeue).
  SimDuration retrigger = seconds(10);
};

class KarpenterProvisioner final : public Provisioner, private EventHandler {
 public:
  struct Inputs {
    Simulation& sim;
    Cluster& cluster;
    ClusterBus& bus;
    CloudProvider& cloud;
    NodePoolInputs nodepool_inputs;  // must outlive the provisioner
    std::vector<NodePool> nodepools;
    ProvisionerSettings settings;
  };
  explicit KarpenterProvisioner(Inputs in);

  // A pod is provisionable: open a batch window or extend it.
  void pod_unschedulable(PodId pod) override { batcher_.trigger(pod); }
  // The CapacityBuffer gate is on: every solve (provisioning's and disruption's) takes these
  // buffers' virtual pods, and their controller triggers a batch. Must outlive the provisioner.
  void set_capacity_buffers(const CapacityBufferController* buffers) { buffers_ = buffers; }
  // The buffer controller's trigger (Trigger(cb.UID)): opens or extends a batch window.
  void buffer_triggered() { batcher_.trigger_buffer(); }
  // The virtual pods every solve injects (none when the gate is off).
  std::span<const PendingPod> virtual_pods() const {
    return buffers_ != nullptr ? buffers_->virtual_pods() : std::span<const PendingPod>{};
  }
  std::uint64_t buffers_generation() const {
    return buffers_ != nullptr ? buffers_->generation() : 0;
  }
  // Later solves use the new pools; nodes keep their pool indices (pools are only added).
  void apply_nodepools(const std::vector<NodePool>& pools) override;
  void apply_node_classes(const std::vector<EC2NodeClass>& classes) override;

  // The run's NodePools (indexed as Node::pool) and the solver's view of them.
  const std::vector<NodePool>& nodepools() const { return pools_; }
  const SchedulingContext& context() const { return *context_; }
  // Changes whenever NodePools or EC2NodeClasses are applied: what drift compares nodes with.
  std::uint64_t generation() const { return generation_; }
  std::uint64_t solves() const { return solves_; }
  // Disruption launches its replacements through the same launcher (one naming stream).
  NodeClaimLauncher& launcher() { return launcher_; }
  const NodeClaimLauncher& launcher() const { return launcher_; }

 private:
  void on_event(SimTime now, std::uint64_t tag) override;  // the retrigger
  void provision();
  void rebuild();
  // UpdateBufferPodCounts from a solve's placements on existing nodes.
  void record_buffer_pods(const ClusterSnapshot* snapshot, std::span<const Placement> placements);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  CloudProvider& cloud_;
  std::vector<EC2NodeClass> node_classes_;  // the inputs' classes, as scripted applies change them
  NodePoolInputs nodepool_inputs_;
  ProvisionerSettings settings_;
  std::vector<NodePool> pools_;  // the context points into it
  std::unique_ptr<SchedulingContext> context_;
  std::uint64_t generation_ = 0;
  std::unique_ptr<Scheduler> scheduler_;
  Batcher batcher_;
  NodeClaimLauncher launcher_;
  EventHandle retrigger_;
  std::uint64_t solves_ = 0;
  const CapacityBufferController* buffers_ = nullptr;
  std::vector<std::int32_t> buffer_counts_;  // scratch, by NodeId
  std::vector<NodeId> buffer_changed_;       // scratch
};

}  // namespace fleetsim
