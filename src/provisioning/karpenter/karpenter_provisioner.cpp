#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"

#include <algorithm>

#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"

namespace fleetsim {

KarpenterProvisioner::KarpenterProvisioner(Inputs in)
    : sim_(in.sim),
      cluster_(in.cluster),
      bus_(in.bus),
      cloud_(in.cloud),
      node_classes_(in.nodepool_inputs.node_classes.begin(), in.nodepool_inputs.node_classes.end()),
      nodepool_inputs_{.catalog = in.nodepool_inputs.catalog,
                       .node_classes = node_classes_,
                       .daemonsets = in.nodepool_inputs.daemonsets,
                       .overlays = in.nodepool_inputs.overlays,
                       .gpu = in.nodepool_inputs.gpu},
      settings_(in.settings),
      pools_(std::move(in.nodepools)),
      batcher_(in.sim, in.settings.batch_idle, in.settings.batch_max, [this] { provision(); }),
      launcher_(in.sim, in.cluster, in.bus, in.cloud, nomination_window(in.settings.batch_max)) {
  rebuild();
}

// The new view is built before the old one is released: the launcher switches to it first.
void KarpenterProvisioner::rebuild() {
  ++generation_;
  std::unique_ptr<SchedulingContext> context =
      make_scheduling_context(nodepool_inputs_, pools_, cloud_);
  launcher_.set_pools(*context, pool_launch_info(nodepool_inputs_, pools_, cloud_));
  // Provisioning holds pods to the reservations they could use (DisableReservedCapacityFallback).
  scheduler_ =
      std::make_unique<Scheduler>(*context, SchedulerOptions{.strict_reserved_offerings = true});
  context_ = std::move(context);
}

void KarpenterProvisioner::apply_nodepools(const std::vector<NodePool>& pools) {
  if (pools.empty()) return;
  merge_nodepools(pools_, pools);
  rebuild();
}

void KarpenterProvisioner::apply_node_classes(const std::vector<EC2NodeClass>& classes) {
  if (classes.empty()) return;
  merge_node_classes(node_classes_, classes);
  nodepool_inputs_.node_classes = node_classes_;
  rebuild();
}

void KarpenterProvisioner::on_event(SimTime, std::uint64_t) {
  // Pods that are still pending go through another batch.
  for (PodId id : std::vector<PodId>(cluster_.pending_pods())) batcher_.trigger(id);
}

void KarpenterProvisioner::provision() {
  ++solves_;
  const std::span<const PendingPod> virtual_pods = this->virtual_pods();
  if (cluster_.pending_pods().empty() && virtual_pods.empty()) {
    // Schedule() has nothing to place: no node holds buffer pods after it.
    if (buffers_ != nullptr) record_buffer_pods(nullptr, {});
    return;
  }
  const ClusterSnapshot snapshot = take_snapshot(cluster_, *context_, virtual_pods);
  const SolveResult result = scheduler_->solve(snapshot.input(
      cloud_.usable_offerings(), cloud_.offering_prices(), cloud_.reservation_remaining()));

  // Only real pods are nominated: a virtual pod's nomination would hold its node forever.
  for (const Placement& pl : result.placements)
    if (snapshot.pending[pl.pod] != kVirtualPod)
      launcher_.nominate(snapshot.pending[pl.pod], snapshot.node_ids[pl.node]);
  for (const NewNodeClaim& claim : result.claims) launcher_.launch(claim, snapshot.pending);
  if (buffers_ != nullptr) record_buffer_pods(&snapshot, result.placements);

  const SimTime now = sim_.now();
  for (const PodFailure& f : result.failures) {
    const PodId id = snapshot.pending[f.pod];
    if (id == kVirtualPod) continue;
    cluster_.nominate(id, kNoNode);
    const Pod& p = cluster_.pod(id);
    if (p.pending_reason == f.reason) continue;
    cluster_.set_pending_reason(id, f.reason);
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::PodUnschedulable,
                       .pod = id,
                       .workload = p.workload,
                       .message = p.pending_reason});
  }

  for (PodId id : snapshot.dra_ignored) {
    const Pod& p = cluster_.pod(id);
    if (p.pending_reason == kDraIgnoredReason) continue;
    cluster_.set_pending_reason(id, std::string(kDraIgnoredReason));
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::PodUnschedulable,
                       .pod = id,
                       .workload = p.workload,
                       .message = p.pending_reason});
  }

  // Pods that are still waiting without a node go through another batch later.
  const bool waiting = std::any_of(snapshot.pending.begin(), snapshot.pending.end(), [&](PodId id) {
    if (id == kVirtualPod) return false;
    const Pod& p = cluster_.pod(id);
    return p.phase == PodPhase::Pending && p.nominated == kNoNode;
  });
  if (waiting && !sim_.is_pending(retrigger_))
    retrigger_ = sim_.schedule_after(settings_.retrigger, Phase::Provisioning, *this);
}

// bufferPodCountsFromResults: only ExistingNodes count; a new NodeClaim's virtual pods are
// counted by the next solve, once the claim is an existing node.
void KarpenterProvisioner::record_buffer_pods(const ClusterSnapshot* snapshot,
                                              std::span<const Placement> placements) {
  buffer_counts_.assign(cluster_.nodes().size(), 0);
  if (snapshot != nullptr) {
    for (const Placement& pl : placements)
      if (snapshot->pending[pl.pod] == kVirtualPod) ++buffer_counts_[snapshot->node_ids[pl.node]];
  }
  buffer_changed_.clear();
  launcher_.claims().set_buffer_pods(buffer_counts_, buffer_changed_);
  const SimTime now = sim_.now();
  for (NodeId id : buffer_changed_)
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::NodeBufferPods,
                       .node = id,
                       .to = launcher_.claims().buffer_pods(id)});
}

}  // namespace fleetsim
