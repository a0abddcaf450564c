#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "fleetsim/provisioning/karpenter/launch_choice.hpp"

namespace fleetsim {

namespace {

// Kubernetes' generateName alphabet: no vowels, no look-alike characters.
constexpr std::string_view kNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

}  // namespace

KarpenterProvisioner::KarpenterProvisioner(Inputs in)
    : in_(std::move(in)),
      scheduler_(std::make_unique<Scheduler>(*in_.context)),
      names_(in_.sim.rng("nodeclaim-names")) {}

void KarpenterProvisioner::set_context(const SchedulingContext& context, std::vector<PoolLaunchInfo> pools) {
  in_.context = &context;
  in_.pools = std::move(pools);
  scheduler_ = std::make_unique<Scheduler>(context);
}

void KarpenterProvisioner::trigger(PodId pod) {
  if (pod_window_.size() <= pod) pod_window_.resize(in_.cluster.pods().size(), 0);
  const SimTime now = in_.sim.now();
  if (!window_open_) {
    window_open_ = true;
    window_start_ = now;
    ++window_id_;
  } else if (pod_window_[pod] == window_id_) {
    return;  // the same pod again does not extend the window
  }
  pod_window_[pod] = window_id_;
  SimTime close = std::min(now + in_.settings.batch_idle, window_start_ + in_.settings.batch_max);
  in_.sim.cancel(close_);
  close_ = in_.sim.schedule_at(close, Phase::Provisioning, *this, static_cast<std::uint64_t>(Timer::CloseWindow));
}

void KarpenterProvisioner::on_event(SimTime, std::uint64_t tag) {
  if (tag == static_cast<std::uint64_t>(Timer::CloseWindow)) {
    window_open_ = false;
    provision();
    return;
  }
  // Retrigger: pods that are still pending go through another batch.
  for (PodId id : std::vector<PodId>(in_.cluster.pending_pods())) trigger(id);
}

std::string KarpenterProvisioner::node_name(const std::string& pool) {
  while (true) {
    std::string suffix;
    for (int i = 0; i < 5; ++i) suffix += kNameAlphabet[names_.below(kNameAlphabet.size())];
    std::string name = fmt::format("{}-{}", pool, suffix);
    auto it = std::lower_bound(used_names_.begin(), used_names_.end(), name);
    if (it != used_names_.end() && *it == name) continue;
    used_names_.insert(it, name);
    return name;
  }
}

void KarpenterProvisioner::provision() {
  Cluster& cluster = in_.cluster;
  const SimTime now = in_.sim.now();
  ++solves_;

  std::vector<PodId> pending;
  std::vector<PendingPod> pods;
  for (PodId id : cluster.pending_pods()) {
    const Pod& p = cluster.pod(id);
    pending.push_back(p.id);
    pods.push_back(PendingPod{.spec = p.spec, .labels = p.labels, .namespace_name = p.namespace_name,
                              .created_us = p.created.time_since_epoch().count(), .uid = p.uid});
  }
  if (pods.empty()) return;

  const std::size_t pool_count = in_.context->pools().size();
  std::vector<NodeId> node_ids;
  std::vector<ExistingNode> nodes;
  std::vector<std::uint32_t> node_slot(cluster.nodes().size(), UINT32_MAX);
  std::vector<Resources> pool_usage(pool_count);
  std::vector<std::int64_t> pool_nodes(pool_count, 0);
  const auto& types = in_.context->catalog().types();
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    // Limits count every NodeClaim of the pool until it is gone, by capacity.
    pool_usage[n.pool] += types[n.type].capacity;
    ++pool_nodes[n.pool];
    if (!n.is_live()) continue;
    node_slot[n.id] = static_cast<std::uint32_t>(nodes.size());
    node_ids.push_back(n.id);
    nodes.push_back(ExistingNode{.name = n.name, .initialized = n.phase == NodePhase::Initialized, .pool = n.pool,
                                 .type = n.type, .zone = n.zone, .capacity_type = n.capacity_type, .labels = &n.labels,
                                 .taints = n.taints, .available = n.available()});
  }
  std::vector<BoundPod> bound;
  for (NodeId id : node_ids)
    for (PodId pod : cluster.node(id).pods) {
      const Pod& p = cluster.pod(pod);
      bound.push_back(BoundPod{.labels = p.labels, .namespace_name = p.namespace_name, .node = node_slot[id]});
    }

  std::span<const std::uint8_t> usable = in_.cloud.usable_offerings();
  SolveResult result = scheduler_->solve(SolveInput{.nodes = nodes, .pods = pods, .bound_pods = bound,
                                                   .pool_usage = pool_usage, .pool_node_count = pool_nodes,
                                                   .offering_usable = usable});

  auto nominate = [&](PodId pod, NodeId node) {
    Pod& p = cluster.pod(pod);
    if (p.nominated == node) return;
    p.nominated = node;
    p.pending_reason.clear();
    cluster.node(node).nominated_until = now + kNominationWindow;
    in_.bus.emit(SimEvent{.time = now, .kind = EventKind::PodNominated, .node = node, .pod = pod, .workload = p.workload});
  };
  for (const Placement& pl : result.placements) nominate(pending[pl.pod], node_ids[pl.node]);

  for (const NewNodeClaim& claim : result.claims) {
    LaunchPlan plan = plan_launch(*in_.context, claim, in_.cloud.usable_offerings());
    const PoolTemplate& tpl = in_.context->pools()[claim.pool];
    Node node;
    node.name = node_name(tpl.pool->name);
    node.pool = claim.pool;
    node.nodepool = tpl.pool->name;
    node.labels = Requirements::from_labels(claim.requirements.single_valued_labels());
    node.taints = tpl.pool->taints;
    node.ebs_bytes = in_.pools[claim.pool].ebs_bytes;
    node.ebs_price_per_hour = in_.pools[claim.pool].ebs_price_per_hour;
    const NodeLatency& latency =
        plan.candidates.empty() ? NodeLatency{} : in_.latency_by_type[plan.candidates.front().type];
    std::optional<NodeId> id = plan.candidates.empty() ? std::nullopt : in_.cloud.launch(std::move(node), plan.candidates, latency);
    if (!id) {
      std::string reason = fmt::format("nodepool {}: launch failed, no offering with capacity", tpl.pool->name);
      in_.bus.emit(SimEvent{.time = now, .kind = EventKind::LaunchFailed, .reason = reason});
      // Their planned claim did not launch: any older nomination is stale too.
      for (std::uint32_t p : claim.pods) {
        cluster.pod(pending[p]).pending_reason = reason;
        cluster.pod(pending[p]).nominated = kNoNode;
      }
      continue;
    }
    for (std::uint32_t p : claim.pods) nominate(pending[p], *id);
  }

  for (const PodFailure& f : result.failures) {
    Pod& p = cluster.pod(pending[f.pod]);
    p.nominated = kNoNode;
    if (p.pending_reason == f.reason) continue;
    p.pending_reason = f.reason;
    in_.bus.emit(SimEvent{.time = now, .kind = EventKind::PodUnschedulable, .pod = p.id, .workload = p.workload,
                          .reason = p.pending_reason});
  }

  // Pods that are still waiting without a node go through another batch later.
  bool waiting = std::any_of(pending.begin(), pending.end(), [&](PodId id) {
    const Pod& p = cluster.pod(id);
    return p.phase == PodPhase::Pending && p.nominated == kNoNode;
  });
  if (waiting && !in_.sim.is_pending(retrigger_))
    retrigger_ = in_.sim.schedule_after(in_.settings.retrigger, Phase::Provisioning, *this,
                                        static_cast<std::uint64_t>(Timer::Retrigger));
}

}  // namespace fleetsim
