// The Cluster Autoscaler (cluster-autoscaler/core/static_autoscaler.go, RunOnce): every scan it
// grows node groups for the pods no node can take, and removes nodes that have been unneeded
// for long enough; the groups are EC2 Auto Scaling groups.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "fleetsim/cloudprovider/aws/auto_scaling_group.hpp"
#include "fleetsim/engine/phase_offsets.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/k8s/node_group.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"
#include "fleetsim/kube/node_termination.hpp"
#include "fleetsim/provisioning/capacity_buffers.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/expander.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/gpu_readiness.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/node_group_backoff.hpp"
#include "fleetsim/provisioning/node_groups.hpp"
#include "fleetsim/provisioning/provisioner.hpp"
#include "fleetsim/scheduling/scheduler.hpp"

namespace fleetsim {

// A scale-up waits while its oldest pending pod is younger than this, or younger than the GPU
// figure when a pending pod asks for a GPU (static_autoscaler.go unschedulablePodTimeBuffer,
// unschedulablePodWithGpuTimeBuffer).
inline constexpr SimDuration kUnschedulablePodTimeBuffer = seconds(2);
inline constexpr SimDuration kUnschedulableGpuPodTimeBuffer = seconds(30);
// A scale-up adds at most this many nodes (--max-nodes-per-scaleup).
inline constexpr std::int64_t kMaxNodesPerScaleUp = 1000;
// A Ready node is a template only once Ready this long (mixed_nodeinfos_processor.go
// stabilizationDelay, isNodeGoodTemplateCandidate).
inline constexpr SimDuration kTemplateStabilizationDelay = minutes(1);
// Pods on a node being drained: evictions are retried for this long (--max-pod-eviction-time),
// then the node goes whatever is left, after the pods' grace (at most max-graceful-termination).
inline constexpr SimDuration kMaxPodEvictionTime = minutes(2);

class ClusterAutoscaler final : public Provisioner, private EventHandler {
 public:
  struct Inputs {
    Simulation& sim;
    Cluster& cluster;
    ClusterBus& bus;
    Ec2Cloud& cloud;
    NodeTermination& termination;
    const PodDisruptionBudgets& pdbs;
    std::vector<NodeGroup> groups;
    std::span<const Workload> daemonsets;
    ClusterAutoscalerSettings settings;
    // The phases of its scan loop and of EC2 Auto Scaling's replacement of lost instances: the
    // first scan comes at scan_offset (a scan interval at 0), and so on.
    SimDuration scan_offset{0};
    SimDuration reconcile_offset{0};
    GpuSetupContext gpu;  // how the groups' nodes configure their GPUs
  };
  explicit ClusterAutoscaler(Inputs in);
  ~ClusterAutoscaler();

  // Groups start at their desired capacity; the scan loop starts.
  void start() override;

  // The autoscaler polls every scan; kube-scheduler's verdicts need no trigger.
  void pod_unschedulable(PodId) override {}
  // NodePools and EC2NodeClasses are Karpenter's: a scripted apply of them has no effect here
  // (the scenario loader warns).
  void apply_nodepools(const std::vector<NodePool>&) override {}
  void apply_node_classes(const std::vector<EC2NodeClass>&) override {}

  const std::vector<std::unique_ptr<AutoScalingGroup>>& groups() const { return asgs_; }
  // Both buffer flags on: `buffers` is reconciled at each loop and its fake pods join the
  // unschedulable pods (CapacityBufferPodListProcessor). Must outlive the autoscaler.
  void set_capacity_buffers(CapacityBufferController* buffers) { buffers_ = buffers; }

 private:
  enum class Timer : std::uint8_t { Scan, Reconcile };
  void on_event(SimTime now, std::uint64_t tag) override;
  void run_once(SimTime now);

  // A node of a group as the autoscaler imagines it: the one learned from the group's nodes if
  // it has one, else AWS's scale-from-zero template (the first instance type's raw capacity,
  // 110 pods, the first zone), less the DaemonSets that land there.
  struct GroupTemplate {
    std::uint32_t type = 0;
    Resources room;      // what pods may request
    Resources capacity;  // least-waste and similarity read capacity
    Requirements labels;
    std::vector<Taint> taints;
    std::string zone;
    CapacityType capacity_type = CapacityType::OnDemand;
    // The DRA devices a node of the group publishes: a real node's, learned; none from AWS's
    // scale-from-zero template (its TemplateNodeInfo builds no ResourceSlices).
    std::vector<DraDevice> dra_devices;
  };
  GroupTemplate group_template(std::uint32_t group) const;
  // MixedTemplateNodeInfoProvider.Process, at the start of each loop: a group with a good node
  // (Ready for a minute, not cordoned) learns its template from it; a group without one keeps
  // what it learned until node-info-cache-expire-time after it last saw one.
  void learn_templates(SimTime now);

  // The nodes one solve may place pods on.
  struct SolveView {
    std::vector<ExistingNode> nodes;
    std::vector<NodeId> node_ids;  // the real nodes, first in `nodes`; templates follow
    std::vector<BoundPod> bound;
    std::deque<std::string> names;           // templates' names
    std::deque<GroupTemplate> templates;     // what template nodes point into
    std::vector<std::uint32_t> template_of;  // per template node: its index in `templates`
  };
  // DynamicResources in the autoscaler's simulation, as a pass over a solve's placements (the
  // solver packs by requests): a pod with claims keeps its place only where its claims can be
  // allocated (a real node's free devices, or a template node's, tracked in `taken` per
  // template node), else on another template node already used or a new one whose room its
  // requests fit beside the pods placed there; otherwise it is dropped. Pods without claims are
  // untouched; nothing happens with the flag off.
  void dra_placements(const SolveView& view, std::span<const PendingPod> pods,
                      std::vector<Placement>& placements) const;
  // Ready nodes minus `exclude`, with what the pods placed this loop take. A node that has not
  // turned Ready (a GPU node whose GPUs are not advertised yet) is not among them: its group's
  // template stands in for it while the scale-up that asked for it is in flight.
  SolveView existing_view(std::span<const NodeId> exclude) const;
  // IsExpendablePod: below --expendable-pods-priority-cutoff and allowed to preempt. The
  // autoscaler's snapshot leaves expendable pods out (they never ask for a scale-up, take no
  // room and keep no node) and puts a pod waiting for the pods it preempted on its nominated node.
  bool expendable(const Pod& pod) const;
  void refresh_snapshot_delta();
  void add_templates(SolveView& view, std::uint32_t group, int count) const;
  SolveResult solve(const SolveView& view, std::span<const PendingPod> pods);

  void check_scale_up_requests(SimTime now);
  // Ready as clusterstate counts it: Initialized, and not a GPU node whose GPUs it takes for
  // unready (gpu_readiness.hpp).
  bool ca_ready(const Node& n) const;
  // The cluster's and each group's health (group_healthy_); false: the loop stops.
  bool update_health(SimTime now);
  // The pods that need a node, after the ones existing and upcoming nodes will take; `ids[i]` is
  // kVirtualPod for a CapacityBuffer's fake pod.
  struct PodsToHelp {
    std::vector<PodId> ids;
    std::vector<PendingPod> pods;
  };
  PodsToHelp pods_to_help(SimTime now, bool& too_new);
  bool scale_up(const PodsToHelp& help, SimTime now);
  // NodeBufferPods for the nodes whose count of fake pods placed this loop changed.
  void record_buffer_pods(SimTime now);
  // NotTriggerScaleUp's message for a pod no group's scale-up would help, each group's reason
  // named: `skipped[g]` when the scan passed the group over (backoff, max size), else why its
  // template node refuses the pod. Built only for pods that failed.
  std::string no_scale_up_reason(const PodSpec& pod, std::span<const std::string_view> skipped,
                                 std::vector<std::optional<GroupTemplate>>& templates) const;

  // ScaleDown (core/scaledown): finds the unneeded nodes, then deletes those unneeded long
  // enough, within the budgets, unless a cool-down holds.
  void scale_down(SimTime now);
  struct ScaleDownCandidate {
    NodeId node;
    std::uint32_t group;
    bool empty;
  };
  // The Ready instances of groups above their min size: empty first, then those unneeded
  // before, then by node.
  std::vector<ScaleDownCandidate> scale_down_candidates() const;
  // The candidates that may go now (utilization, drainability and a fit of their pods on the
  // others); keeps unneeded_since_ to them.
  std::vector<ScaleDownCandidate> unneeded_nodes(std::span<const ScaleDownCandidate> candidates,
                                                 SimTime now);
  // Deletes the nodes unneeded for scale-down-unneeded-time, within min sizes and the
  // parallelism budgets.
  void delete_unneeded(std::span<const ScaleDownCandidate> unneeded, SimTime now);
  void grow(std::uint32_t group, int delta, SimTime now);
  int target(std::uint32_t group) const { return asgs_[group]->desired(); }
  std::int64_t node_count() const;  // instances of all groups, upcoming ones included

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  Ec2Cloud& cloud_;
  NodeTermination& termination_;
  const PodDisruptionBudgets& pdbs_;
  ClusterAutoscalerSettings settings_;
  SimDuration scan_offset_;
  SimDuration reconcile_offset_;
  std::vector<std::unique_ptr<AutoScalingGroup>> asgs_;
  std::unique_ptr<SchedulingContext> existing_context_;  // no pools: places on given nodes only
  std::unique_ptr<Scheduler> scheduler_;
  RngStream expander_rng_;
  NodeGroupBackoff backoff_;
  // Per group, a scale-up in flight (clusterstate's ScaleUpRequest): when its nodes are due.
  std::vector<std::optional<SimTime>> expected_add_time_;
  // Per group, the nodes the scale-up in flight adds (ScaleUpRequest.Increase), and its health.
  std::vector<std::int64_t> scale_up_increase_;
  std::vector<std::uint8_t> group_healthy_;
  ResourceRegistry default_resources_;  // when the run gives none
  const ResourceRegistry* resources_ = &default_resources_;
  // Per group, the template learned from its nodes (nodeInfoCache) and when it was last seen.
  struct LearnedTemplate {
    GroupTemplate node;
    SimTime seen;
  };
  std::vector<std::optional<LearnedTemplate>> learned_;
  std::map<NodeId, SimTime> unneeded_since_;
  // Requests of the pending pods this loop found a place for on existing nodes: they stay
  // there in the autoscaler's snapshot, so scale-down counts them.
  std::map<NodeId, Resources> placed_extra_;
  // The CapacityBuffers' controller when both buffer flags are on; the fake pods this loop
  // placed on each Ready node (by NodeId), and what was last reported.
  CapacityBufferController* buffers_ = nullptr;
  std::vector<std::int32_t> buffer_counts_;
  std::vector<std::int32_t> buffer_reported_;
  // Per node, what its snapshot adds to the cluster's requests (refresh_snapshot_delta): the
  // pods waiting on it for preemption less its expendable pods; and the nodes where some wait.
  std::map<NodeId, Resources> snapshot_delta_;
  std::vector<NodeId> awaited_;
  std::vector<NodeId> deleting_;  // nodes this autoscaler is removing, until they are gone
  SimTime last_scale_up_;
  SimTime last_scale_down_delete_;
  SimTime last_scale_down_fail_;
};

}  // namespace fleetsim
