#include "fleetsim/provisioning/cluster_autoscaler/cluster_autoscaler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/scale_down_rules.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/scale_up_decision.hpp"
#include "fleetsim/provisioning/solver_view.hpp"

namespace fleetsim {

namespace {

using Tag = EventTag<std::uint8_t>;

// The pods a node of AWS's scale-from-zero template holds (aws_manager.go buildNodeFromTemplate).
constexpr std::int64_t kTemplatePods = 110;
// compare_nodegroups.go: similar groups' memory within 1.5%, allocatable within 5%.
constexpr double kMemoryDifferenceRatio = 0.015;
constexpr double kAllocatableDifferenceRatio = 0.05;

bool within(std::int64_t a, std::int64_t b, double ratio) {
  const std::int64_t larger = std::max(a, b);
  return static_cast<double>(larger - std::min(a, b)) <= static_cast<double>(larger) * ratio;
}

}  // namespace

ClusterAutoscaler::ClusterAutoscaler(Inputs in)
    : sim_(in.sim),
      cluster_(in.cluster),
      bus_(in.bus),
      cloud_(in.cloud),
      termination_(in.termination),
      pdbs_(in.pdbs),
      settings_(std::move(in.settings)),
      scan_offset_(in.scan_offset),
      reconcile_offset_(in.reconcile_offset),
      expander_rng_(in.sim.rng("cluster-autoscaler/expander")),
      backoff_(in.groups.size(), settings_.initial_node_group_backoff,
               settings_.max_node_group_backoff),
      expected_add_time_(in.groups.size()),
      scale_up_increase_(in.groups.size(), 0),
      learned_(in.groups.size()),
      last_scale_up_(in.sim.now() - hours(1)),
      last_scale_down_delete_(in.sim.now() - hours(1)),
      last_scale_down_fail_(in.sim.now() - hours(1)) {
  if (in.gpu.resources != nullptr) resources_ = in.gpu.resources;
  asgs_ =
      make_node_group_fleet(std::move(in.groups), in.daemonsets, cloud_, cluster_, in.sim, in.gpu)
          .asgs;
  std::vector<SchedulingContext::DaemonSet> daemonsets;
  for (const Workload& ds : in.daemonsets) daemonsets.push_back({.spec = &ds.pod.spec});
  existing_context_ = std::make_unique<SchedulingContext>(cloud_.catalog(),
                                                          std::span<const NodePool>{}, daemonsets);
  scheduler_ = std::make_unique<Scheduler>(*existing_context_);
}

ClusterAutoscaler::~ClusterAutoscaler() = default;

void ClusterAutoscaler::start() {
  for (auto& asg : asgs_) asg->set_desired(asg->group().desired_capacity);
  sim_.every(settings_.scan_interval,
             first_firing_after_start(sim_.now(), settings_.scan_interval, scan_offset_),
             Phase::Provisioning, *this, Tag{static_cast<std::uint8_t>(Timer::Scan)}.pack());
  sim_.every(kAutoScalingReconcileInterval,
             first_firing_after_start(sim_.now(), kAutoScalingReconcileInterval, reconcile_offset_),
             Phase::CloudAndNodes, *this, Tag{static_cast<std::uint8_t>(Timer::Reconcile)}.pack());
}

void ClusterAutoscaler::on_event(SimTime now, std::uint64_t tag) {
  if (static_cast<Timer>(Tag::unpack(tag).kind) == Timer::Reconcile) {
    for (auto& asg : asgs_) asg->reconcile();
    return;
  }
  run_once(now);
}

std::int64_t ClusterAutoscaler::node_count() const {
  std::int64_t n = 0;
  for (const auto& asg : asgs_) n += asg->desired();
  return n;
}

void ClusterAutoscaler::run_once(SimTime now) {
  std::erase_if(deleting_,
                [&](NodeId id) { return cluster_.node(id).phase == NodePhase::Terminated; });
  learn_templates(now);
  check_scale_up_requests(now);
  if (!update_health(now)) return;
  refresh_snapshot_delta();
  // The buffer controller follows its objects through informers: current at every loop.
  if (buffers_ != nullptr) buffers_->reconcile(now);
  bool too_new = false;
  const PodsToHelp help = pods_to_help(now, too_new);
  if (buffers_ != nullptr) record_buffer_pods(now);
  if (!help.pods.empty() && !too_new) scale_up(help, now);
  if (settings_.scale_down_enabled && !too_new) scale_down(now);
}

// clusterstate.updateScaleRequests: a scale-up is done when its nodes are Ready; one whose
// launches found no capacity fails at once (the ASG's failed scaling activity); one whose nodes
// are not Ready by max-node-provision-time times out. A failure backs the group off, and its
// instances that never registered are removed (removeOldUnregisteredNodes, down to min size).
void ClusterAutoscaler::check_scale_up_requests(SimTime now) {
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    if (!expected_add_time_[g]) continue;
    AutoScalingGroup& asg = *asgs_[g];
    const int missing = asg.reconcile();
    int ready = 0;
    for (NodeId id : asg.instances()) ready += ca_ready(cluster_.node(id)) ? 1 : 0;
    ScaleUpFailure failure{};
    if (missing > 0) {
      failure = ScaleUpFailure::NoCapacity;
      asg.set_desired(asg.desired() - missing);
    } else if (ready >= asg.desired()) {
      expected_add_time_[g].reset();
      scale_up_increase_[g] = 0;
      continue;
    } else if (*expected_add_time_[g] < now) {
      failure = ScaleUpFailure::TimedOut;
      std::vector<NodeId> unregistered;
      for (NodeId id : asg.instances())
        if (cluster_.node(id).phase < NodePhase::Registered) unregistered.push_back(id);
      for (NodeId id : unregistered) {
        if (asg.desired() <= asg.group().min_size) break;
        asg.detach(id);
        termination_.delete_node(id, NodeDeletionReason::ScaleUpTimedOut);
      }
    } else {
      continue;
    }
    backoff_.fail(g, now);
    expected_add_time_[g].reset();
    scale_up_increase_[g] = 0;
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::ScaleUpFailed,
                       .reason = failure,
                       .node_group = asg.group().name});
  }
}

bool ClusterAutoscaler::ca_ready(const Node& n) const {
  return n.phase == NodePhase::Initialized &&
         !gpu_resource_unready(n, *resources_, settings_.gpu_readiness);
}

// ClusterStateRegistry.UpdateNodes then IsClusterHealthy (static_autoscaler.go RunOnce): every
// registered node counts Ready, NotStarted or Unready (one being deleted in none); too many
// Unready and the loop stops here, no scale-up and no scale-down ("Cluster is not ready for
// autoscaling"), forgetting the unneeded nodes. Each group's health is kept for scale-up.
bool ClusterAutoscaler::update_health(SimTime now) {
  std::int64_t nodes = 0;
  std::int64_t unready = 0;
  for (NodeId id : cluster_.active_nodes()) {
    const Node& n = cluster_.node(id);
    if (n.phase < NodePhase::Registered || n.phase == NodePhase::Terminated) continue;
    ++nodes;
    if (n.phase == NodePhase::Deleting) continue;
    unready += ca_node_readiness(n, ca_ready(n), now, settings_) == CaNodeReadiness::Unready;
  }
  group_healthy_.assign(asgs_.size(), 1);
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    std::int64_t counts[3] = {0, 0, 0};
    for (NodeId id : asgs_[g]->instances()) {
      const Node& n = cluster_.node(id);
      if (n.phase < NodePhase::Registered || n.phase >= NodePhase::Deleting) continue;
      ++counts[static_cast<std::size_t>(ca_node_readiness(n, ca_ready(n), now, settings_))];
    }
    const auto ready = counts[static_cast<std::size_t>(CaNodeReadiness::Ready)];
    group_healthy_[g] =
        node_group_healthy(ready, counts[static_cast<std::size_t>(CaNodeReadiness::Unready)],
                           counts[static_cast<std::size_t>(CaNodeReadiness::NotStarted)],
                           asgs_[g]->desired() - scale_up_increase_[g], settings_);
  }
  if (cluster_healthy(unready, nodes, settings_)) return true;
  unneeded_since_.clear();
  const std::string reason = fmt::format(
      "the Cluster Autoscaler does nothing while the cluster is unhealthy: {} of {} nodes "
      "unready (more than --ok-total-unready-count {} and --max-total-unready-percentage {:g})",
      unready, nodes, settings_.ok_total_unready_count, settings_.max_total_unready_percentage);
  for (PodId id : cluster_.pending_pods()) cluster_.set_pending_reason(id, reason);
  return false;
}

bool ClusterAutoscaler::expendable(const Pod& pod) const {
  return pod.spec->priority < settings_.expendable_pods_priority_cutoff &&
         pod.spec->preemption_policy != PreemptionPolicy::Never;
}

// static_autoscaler.go: the snapshot holds the non-expendable scheduled pods, and
// FilterOutExpendableAndSplit puts the pods waiting for lower-priority pods' preemption on their
// nominated nodes (while those exist).
void ClusterAutoscaler::refresh_snapshot_delta() {
  snapshot_delta_.clear();
  awaited_.clear();
  for (PodId id : cluster_.pending_pods()) {
    const Pod& p = cluster_.pod(id);
    if (p.nominated_node_name == kNoNode || expendable(p) ||
        cluster_.node(p.nominated_node_name).phase == NodePhase::Terminated)
      continue;
    snapshot_delta_[p.nominated_node_name] += p.spec->requests;
    awaited_.push_back(p.nominated_node_name);
  }
  // Only a cluster that ever bound a pod below the cutoff has expendable pods to look for.
  if (cluster_.lowest_bound_priority() >= settings_.expendable_pods_priority_cutoff) return;
  for (NodeId id : cluster_.active_nodes())
    for (PodId p : cluster_.node(id).pods)
      if (const Pod& pod = cluster_.pod(p); expendable(pod))
        snapshot_delta_[id] -= pod.spec->requests;
}

ClusterAutoscaler::PodsToHelp ClusterAutoscaler::pods_to_help(SimTime now, bool& too_new) {
  std::vector<PodId> pending;
  for (PodId id : cluster_.pending_pods()) {
    const Pod& p = cluster_.pod(id);
    if (p.terminating || expendable(p)) continue;
    if (p.spec->scheduler_profile < 0) continue;  // no scheduler marks it unschedulable
    if (p.gated) continue;  // held at PreEnqueue: never marked unschedulable either
    // A pod waiting for the lower-priority pods it preempted binds there: no scale-up.
    if (p.nominated_node_name != kNoNode &&
        cluster_.node(p.nominated_node_name).phase != NodePhase::Terminated)
      continue;
    if (now - p.created <= settings_.new_pod_scale_up_delay &&
        settings_.new_pod_scale_up_delay > SimDuration{0})
      continue;
    pending.push_back(id);
  }
  // CapacityBufferPodListProcessor runs first: the buffers' fake pods follow the unschedulable
  // ones (their zero creation time passes every delay).
  const std::span<const PendingPod> fake =
      buffers_ != nullptr ? buffers_->virtual_pods() : std::span<const PendingPod>{};
  placed_extra_.clear();
  if (buffers_ != nullptr) buffer_counts_.assign(cluster_.nodes().size(), 0);
  if (pending.empty() && fake.empty()) return {};
  PodsToHelp all;
  all.ids = std::move(pending);
  all.ids.insert(all.ids.end(), fake.size(), kVirtualPod);
  for (PodId id : all.ids)
    if (id != kVirtualPod) all.pods.push_back(pending_pod(cluster_.pod(id)));
  all.pods.insert(all.pods.end(), fake.begin(), fake.end());
  // Higher priority first, as FilterOutSchedulable packs them.
  std::vector<std::uint32_t> order(all.ids.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return all.pods[a].spec->priority > all.pods[b].spec->priority;
  });
  std::vector<PodId> ids;
  std::vector<PendingPod> pods;
  for (std::uint32_t i : order) {
    ids.push_back(all.ids[i]);
    pods.push_back(all.pods[i]);
  }

  // Ready nodes, and a template node for each node an active scale-up still waits for (a GPU
  // node that has not advertised its GPUs yet is one: its template, GPUs included, takes its
  // pods here, so no second node is bought for them).
  SolveView view = existing_view(/*exclude=*/{});
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    if (!expected_add_time_[g] || backoff_.backed_off(g, now)) continue;
    int ready = 0;
    for (NodeId id : asgs_[g]->instances()) ready += ca_ready(cluster_.node(id)) ? 1 : 0;
    add_templates(view, g, asgs_[g]->desired() - ready);
  }
  SolveResult result = solve(view, pods);
  dra_placements(view, pods, result.placements);
  std::vector<std::uint8_t> placed(pods.size(), 0);
  for (const Placement& p : result.placements) {
    placed[p.pod] = 1;
    if (p.node < view.node_ids.size()) {
      placed_extra_[view.node_ids[p.node]] += pods[p.pod].spec->requests;
      if (ids[p.pod] == kVirtualPod) ++buffer_counts_[view.node_ids[p.node]];
    }
  }
  PodsToHelp out;
  SimTime oldest = kNever;
  SimTime oldest_gpu = kNever;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (placed[i]) continue;
    out.ids.push_back(ids[i]);
    out.pods.push_back(pods[i]);
    if (ids[i] == kVirtualPod) continue;
    const Pod& p = cluster_.pod(ids[i]);
    oldest = std::min(oldest, p.created);
    if (p.spec->requests.gpus() > 0) oldest_gpu = std::min(oldest_gpu, p.created);
  }
  too_new = oldest != kNever &&
            (now - oldest < kUnschedulablePodTimeBuffer ||
             (oldest_gpu != kNever && now - oldest_gpu < kUnschedulableGpuPodTimeBuffer));
  return out;
}

void ClusterAutoscaler::record_buffer_pods(SimTime now) {
  const std::size_t n = std::max(buffer_counts_.size(), buffer_reported_.size());
  buffer_counts_.resize(n, 0);
  buffer_reported_.resize(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (buffer_counts_[i] == buffer_reported_[i]) continue;
    buffer_reported_[i] = buffer_counts_[i];
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::NodeBufferPods,
                       .node = static_cast<NodeId>(i),
                       .to = buffer_counts_[i]});
  }
}

// A template learned from a real node keeps what the node shows, not the launch template's guess:
// its allocatable (after kubelet's reservations) less its DaemonSet pods, its labels and zone
// (TemplateNodeInfoFromExampleNodeInfo). It outlives the node: without the cache, a group scaled
// to zero went back to the scale-from-zero template and could again be bought for pods that its
// real nodes cannot hold.
void ClusterAutoscaler::learn_templates(SimTime now) {
  const Catalog& catalog = cloud_.catalog();
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    std::optional<LearnedTemplate>& learned = learned_[g];
    const auto good =
        std::find_if(asgs_[g]->instances().begin(), asgs_[g]->instances().end(), [&](NodeId id) {
          const Node& n = cluster_.node(id);
          return ca_ready(n) && n.initialized_at + kTemplateStabilizationDelay < now;
        });
    if (good == asgs_[g]->instances().end()) {
      if (learned && now - learned->seen > settings_.node_info_cache_expire_time) learned.reset();
      continue;
    }
    const Node& n = cluster_.node(*good);
    learned = LearnedTemplate{.node = {.type = n.type,
                                       .room = n.allocatable - n.daemon_overhead,
                                       .capacity = catalog.types()[n.type].capacity,
                                       .labels = n.labels,
                                       .taints = asgs_[g]->spec().node_template.taints,
                                       .zone = n.zone,
                                       .capacity_type = n.capacity_type,
                                       .dra_devices = n.gpu_setup.dra_devices},
                              .seen = now};
  }
}

ClusterAutoscaler::GroupTemplate ClusterAutoscaler::group_template(std::uint32_t g) const {
  if (learned_[g]) return learned_[g]->node;
  const Catalog& catalog = cloud_.catalog();
  const AutoScalingGroup& asg = *asgs_[g];
  GroupTemplate t;
  const AutoScalingGroup::Spec& spec = asg.spec();
  const NodeGroup& group = asg.group();
  t.type = spec.types.front().type;
  t.capacity = catalog.types()[t.type].capacity;
  // The ASG's node-template/resources tags replace the type's figures (a MIG layout's slices, a
  // time-sliced GPU's replicas); a resource no pod of the run names changes nothing.
  for (const auto& [name, amount] : group.template_resources)
    if (const std::optional<ResourceIndex> slot = resources_->find(name))
      t.capacity[*slot] = amount;
  Resources raw = t.capacity;
  raw[resource::kPods] = kTemplatePods;
  t.room = raw - spec.types.front().daemon_overhead;
  if (group.template_has_group_labels) {
    t.labels = spec.node_template.labels;
    t.taints = spec.node_template.taints;
  }
  // A managed group's own labels (DescribeNodegroup's) win over its ASG's label tags.
  for (const auto& [key, value] : group.template_labels)
    if (!t.labels.has(key)) t.labels.add(key, Requirement::single(value));
  t.taints.insert(t.taints.end(), group.template_taints.begin(), group.template_taints.end());
  t.labels.add(catalog.types()[t.type].requirements);
  t.zone = asg.group().zones.front();
  t.labels.add(std::string(label::kInstanceType),
               Requirement::single(catalog.types()[t.type].name));
  t.labels.add(std::string(label::kZone), Requirement::single(t.zone));
  t.capacity_type =
      asg.group().on_demand_count(1) > 0 ? CapacityType::OnDemand : CapacityType::Spot;
  return t;
}

ClusterAutoscaler::SolveView ClusterAutoscaler::existing_view(
    std::span<const NodeId> exclude) const {
  SolveView view;
  for (NodeId id : cluster_.active_nodes()) {
    const Node& n = cluster_.node(id);
    if (n.phase != NodePhase::Initialized) continue;
    if (std::find(exclude.begin(), exclude.end(), id) != exclude.end()) continue;
    Resources available = n.available();
    if (auto extra = placed_extra_.find(id); extra != placed_extra_.end())
      available -= extra->second;
    if (auto delta = snapshot_delta_.find(id); delta != snapshot_delta_.end())
      available -= delta->second;
    view.node_ids.push_back(id);
    view.nodes.push_back(existing_node(n, available));
  }
  add_bound_pods(cluster_, view.node_ids, view.bound);
  if (cluster_.lowest_bound_priority() < settings_.expendable_pods_priority_cutoff) {
    std::erase_if(view.bound, [&](const BoundPod& b) {
      return b.spec->priority < settings_.expendable_pods_priority_cutoff &&
             b.spec->preemption_policy != PreemptionPolicy::Never;
    });
  }
  return view;
}

void ClusterAutoscaler::add_templates(SolveView& view, std::uint32_t g, int count) const {
  if (count <= 0) return;
  const GroupTemplate& t = view.templates.emplace_back(group_template(g));
  const std::string& group = asgs_[g]->group().name;
  view.template_of.insert(view.template_of.end(), static_cast<std::size_t>(count),
                          static_cast<std::uint32_t>(view.templates.size() - 1));
  for (int i = 0; i < count; ++i) {
    // Named so that they sort after every real node and in order: first fit fills them in turn.
    const std::string& name = view.names.emplace_back(fmt::format("~template-{}-{:06}", group, i));
    view.nodes.push_back(ExistingNode{.name = name,
                                      .initialized = true,
                                      .pool = kNoPool,
                                      .type = t.type,
                                      .zone = t.zone,
                                      .capacity_type = t.capacity_type,
                                      .labels = &t.labels,
                                      .taints = t.taints,
                                      .available = t.room});
  }
}

SolveResult ClusterAutoscaler::solve(const SolveView& view, std::span<const PendingPod> pods) {
  return scheduler_->solve(SolveInput{.nodes = view.nodes, .pods = pods, .bound_pods = view.bound});
}

// ScaleUp (core/scaleup/orchestrator): each group that is not backed off and below its max
// estimates, on as many template nodes as it may add, how many the pods need (the binpacking
// estimator, here the provisioner's own solver packing template nodes first-fit); the expander
// picks one; max-nodes-total caps it; similar groups share it when balancing is on.
bool ClusterAutoscaler::scale_up(const PodsToHelp& help, SimTime now) {
  const std::int64_t current = node_count();
  if (settings_.max_nodes_total > 0) {
    std::int64_t ready = 0;
    for (NodeId id : cluster_.active_nodes())
      ready += cluster_.node(id).phase == NodePhase::Initialized ? 1 : 0;
    if (ready >= settings_.max_nodes_total) return false;
  }
  const std::vector<PendingPod>& pods = help.pods;

  std::vector<ScaleUpOption> options;
  std::vector<std::string_view> skipped(asgs_.size());  // why a group was passed over
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    const AutoScalingGroup& asg = *asgs_[g];
    if (backoff_.backed_off(g, now)) {
      skipped[g] = "in backoff after failed scale-up";
      continue;
    }
    if (!group_healthy_[g]) {
      skipped[g] = "not ready for scale-up";  // NodeGroupScaleUpSafety: unhealthy
      continue;
    }
    if (asg.desired() >= asg.group().max_size) {
      skipped[g] = "max node group size reached";
      continue;
    }
    std::int64_t limit =
        std::min<std::int64_t>({asg.group().max_size - asg.desired(), kMaxNodesPerScaleUp,
                                static_cast<std::int64_t>(pods.size())});
    if (settings_.max_nodes_total > 0) limit = std::min(limit, settings_.max_nodes_total - current);
    if (limit <= 0) {
      skipped[g] = "max-nodes-total reached";
      continue;
    }
    SolveView view;
    add_templates(view, g, static_cast<int>(limit));
    SolveResult result = solve(view, pods);
    dra_placements(view, pods, result.placements);
    ScaleUpOption o{
        .group = g, .name = asg.group().name, .node_capacity = view.templates.front().capacity};
    std::vector<std::uint8_t> used(view.nodes.size(), 0);
    for (const Placement& p : result.placements) {
      o.pods.push_back(p.pod);
      o.pod_requests += pods[p.pod].spec->requests;
      used[p.node] = 1;
    }
    o.node_count = std::count(used.begin(), used.end(), 1);
    if (!o.pods.empty() && o.node_count > 0) options.push_back(std::move(o));
  }
  if (options.empty()) {
    std::vector<std::optional<GroupTemplate>> templates(asgs_.size());
    std::map<const PodSpec*, std::string> by_spec;  // a Deployment's pods share one reason
    for (PodId id : help.ids) {
      if (id == kVirtualPod) continue;  // a fake pod has no status to write
      const PodSpec* spec = cluster_.pod(id).spec;
      auto it = by_spec.find(spec);
      if (it == by_spec.end())
        it = by_spec.emplace(spec, no_scale_up_reason(*spec, skipped, templates)).first;
      cluster_.set_pending_reason(id, it->second);
    }
    return false;
  }
  const std::optional<std::size_t> best =
      choose_option(options, settings_.expanders, settings_.priorities, expander_rng_);
  if (!best) return false;
  std::int64_t new_nodes = options[*best].node_count;
  if (settings_.max_nodes_total > 0 && new_nodes + current > settings_.max_nodes_total)
    new_nodes = settings_.max_nodes_total - current;
  if (new_nodes < 1) return false;

  // balanceScaleUps: the best group and the similar ones that could take the same pods, filled
  // one node at a time into the smallest (BalanceScaleUpBetweenGroups).
  std::vector<std::uint32_t> share{options[*best].group};
  if (settings_.balance_similar_node_groups) {
    const GroupTemplate best_template = group_template(options[*best].group);
    const NodeGroup& best_group = asgs_[options[*best].group]->group();
    for (const ScaleUpOption& o : options) {
      if (o.group == options[*best].group || o.pods != options[*best].pods) continue;
      const GroupTemplate t = group_template(o.group);
      const NodeGroup& other = asgs_[o.group]->group();
      bool similar = t.capacity.cpu_millis() == best_template.capacity.cpu_millis() &&
                     t.capacity.gpus() == best_template.capacity.gpus() &&
                     within(t.capacity.memory_bytes(), best_template.capacity.memory_bytes(),
                            kMemoryDifferenceRatio) &&
                     other.labels == best_group.labels && other.taints == best_group.taints &&
                     t.type == best_template.type;
      for (ResourceIndex r = 0; similar && r < resource::kMaxResources; ++r)
        similar = within(t.room[r], best_template.room[r], kAllocatableDifferenceRatio);
      if (similar) share.push_back(o.group);
    }
  }
  std::sort(share.begin(), share.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::make_pair(target(a), a) < std::make_pair(target(b), b);
  });
  std::vector<int> added(share.size(), 0);
  for (std::int64_t n = 0; n < new_nodes; ++n) {
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < share.size(); ++i) {
      if (target(share[i]) + added[i] >= asgs_[share[i]]->group().max_size) continue;
      if (!pick || target(share[i]) + added[i] < target(share[*pick]) + added[*pick]) pick = i;
    }
    if (!pick) break;
    ++added[*pick];
  }

  std::vector<ScaleUpDecision::Option> weighed;
  for (const ScaleUpOption& o : options)
    weighed.push_back({.node_group = asgs_[o.group]->group().name,
                       .nodes = o.node_count,
                       .pods = static_cast<std::int64_t>(o.pods.size())});
  std::vector<ScaleUpDecision::Option> grown;
  for (std::size_t i = 0; i < share.size(); ++i) {
    if (added[i] == 0) continue;
    grow(share[i], added[i], now);
    grown.push_back({.node_group = asgs_[share[i]]->group().name, .nodes = added[i], .pods = 0});
  }
  if (grown.empty()) return false;
  last_scale_up_ = now;
  const ScaleUpDecision decision{
      .expander = to_string(settings_.expanders.front()), .grown = grown, .options = weighed};
  bus_.emit(SimEvent{.time = now, .kind = EventKind::ScaleUp, .scale_up = &decision});
  return true;
}

void ClusterAutoscaler::grow(std::uint32_t g, int delta, SimTime now) {
  AutoScalingGroup& asg = *asgs_[g];
  asg.set_desired(asg.desired() + delta);
  // A further scale-up of the group resets the deadline, as upstream's does.
  expected_add_time_[g] = now + settings_.max_node_provision_time;
  scale_up_increase_[g] += delta;
}

// ScaleDown (core/scaledown): a node of a group above its min size, Ready, at or below the
// utilization threshold, whose pods may all go and all fit on the other nodes, is unneeded;
// after scale-down-unneeded-time of that (and outside the cool-downs) it is removed, empty
// nodes in bulk and others a few at a time, each within the parallelism budgets.
void ClusterAutoscaler::scale_down(SimTime now) {
  const bool cooldown = last_scale_up_ + settings_.scale_down_delay_after_add > now ||
                        last_scale_down_fail_ + settings_.scale_down_delay_after_failure > now ||
                        last_scale_down_delete_ + settings_.scale_down_delay_after_delete > now;
  const std::vector<ScaleDownCandidate> unneeded = unneeded_nodes(scale_down_candidates(), now);
  if (!cooldown) delete_unneeded(unneeded, now);
}

std::vector<ClusterAutoscaler::ScaleDownCandidate> ClusterAutoscaler::scale_down_candidates()
    const {
  std::vector<ScaleDownCandidate> candidates;
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    const AutoScalingGroup& asg = *asgs_[g];
    if (asg.desired() <= asg.group().min_size) continue;
    for (NodeId id : asg.instances()) {
      const Node& n = cluster_.node(id);
      if (n.phase != NodePhase::Initialized) continue;
      const bool empty = std::all_of(n.pods.begin(), n.pods.end(), [&](PodId p) {
        return cluster_.pod(p).terminating || expendable(cluster_.pod(p));
      });
      const bool awaited = std::find(awaited_.begin(), awaited_.end(), id) != awaited_.end();
      candidates.push_back({id, g, empty && !awaited && !placed_extra_.contains(id)});
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const ScaleDownCandidate& a, const ScaleDownCandidate& b) {
                     const bool ua = unneeded_since_.contains(a.node);
                     const bool ub = unneeded_since_.contains(b.node);
                     return std::tie(b.empty, ub, a.node) < std::tie(a.empty, ua, b.node);
                   });
  return candidates;
}

// The removal simulation (planner.categorizeNodes): candidates at or below the threshold, in
// order, each removed from a copy of the Ready nodes if its pods may go and all fit on the
// others, where they then stay for the candidates after it. One view serves every candidate:
// removed nodes are masked, moved pods take their destination's room.
std::vector<ClusterAutoscaler::ScaleDownCandidate> ClusterAutoscaler::unneeded_nodes(
    std::span<const ScaleDownCandidate> candidates, SimTime now) {
  const Catalog& catalog = cloud_.catalog();
  SolveView view = existing_view({});
  std::vector<std::uint32_t> slot(cluster_.nodes().size(), UINT32_MAX);
  for (std::uint32_t i = 0; i < view.node_ids.size(); ++i) slot[view.node_ids[i]] = i;
  const std::vector<std::uint32_t> order = solver_node_order(view.nodes);
  const std::vector<std::int8_t> zones = solver_node_zones(*existing_context_, view.nodes);
  std::vector<std::uint8_t> removed(view.nodes.size(), 0);
  const bool bound_anti_affinity =
      std::any_of(view.bound.begin(), view.bound.end(), repels_pending_pods);
  auto needs_bound = [&](std::span<const PendingPod> pods) {
    return bound_anti_affinity || std::any_of(pods.begin(), pods.end(), reads_bound_pods);
  };
  std::vector<ScaleDownCandidate> unneeded;
  for (const ScaleDownCandidate& c : candidates) {
    const Node& n = cluster_.node(c.node);
    Resources extra;
    if (auto it = placed_extra_.find(c.node); it != placed_extra_.end()) extra = it->second;
    if (auto it = snapshot_delta_.find(c.node); it != snapshot_delta_.end()) extra += it->second;
    const NodeUtilization u = node_utilization(n, catalog, extra);
    const double threshold = u.gpu ? settings_.scale_down_gpu_utilization_threshold
                                   : settings_.scale_down_utilization_threshold;
    bool ok = u.value <= threshold;
    std::vector<PendingPod> to_move;
    for (PodId p : n.pods) {
      if (!ok) break;
      const Pod& pod = cluster_.pod(p);
      if (pod.terminating || expendable(pod)) continue;  // not in the snapshot: nothing to move
      if (blocks_scale_down(pod, cluster_.workloads().at(pod.workload).kind, pdbs_, settings_, now))
        ok = false;
      // fleetsim does not simulate moving a pod's allocated claims to other nodes' devices:
      // such a pod keeps its node.
      if (settings_.dynamic_resource_allocation && !pod.spec->resource_claims.empty()) ok = false;
      to_move.push_back(pending_pod(pod));
    }
    if (ok) {
      removed[slot[c.node]] = 1;
      if (!to_move.empty()) {
        const SolveResult result = scheduler_->solve(SolveInput{
            .nodes = view.nodes,
            .pods = to_move,
            .bound_pods = needs_bound(to_move) ? view.bound : std::span<const BoundPod>{},
            .node_order = order,
            .node_zones = zones,
            .node_removed = removed});
        ok = result.placements.size() == to_move.size();
        if (ok) {
          for (const Placement& p : result.placements)
            view.nodes[p.node].available -= to_move[p.pod].spec->requests;
        } else {
          removed[slot[c.node]] = 0;
        }
      }
    }
    if (!ok) {
      unneeded_since_.erase(c.node);
      continue;
    }
    unneeded.push_back(c);
    if (unneeded_since_.emplace(c.node, now).second) {
      const std::string reason = fmt::format("{} utilization {:.3f} at or below {}",
                                             u.gpu ? "GPU" : "CPU/memory", u.value, threshold);
      bus_.emit(SimEvent{
          .time = now, .kind = EventKind::ScaleDownCandidate, .node = c.node, .message = reason});
    }
  }
  // Nodes no longer unneeded (gone, or not candidates this loop) start over.
  std::vector<NodeId> still;
  for (const ScaleDownCandidate& c : unneeded) still.push_back(c.node);
  std::sort(still.begin(), still.end());
  std::erase_if(unneeded_since_, [&](const auto& entry) {
    return !std::binary_search(still.begin(), still.end(), entry.first);
  });
  return unneeded;
}

void ClusterAutoscaler::delete_unneeded(std::span<const ScaleDownCandidate> unneeded, SimTime now) {
  int in_progress = 0;
  int drains_in_progress = 0;
  std::vector<int> size(asgs_.size());
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) size[g] = asgs_[g]->desired();
  for (NodeId id : deleting_) {
    ++in_progress;
    drains_in_progress +=
        cluster_.node(id).termination_reason == NodeDeletionReason::ScaleDown ? 1 : 0;
  }
  int budget = settings_.max_scale_down_parallelism - in_progress;
  int drain_budget = std::min(budget, settings_.max_drain_parallelism - drains_in_progress);
  for (const ScaleDownCandidate& c : unneeded) {
    if (budget <= 0) break;
    // An unready node (here: one whose GPUs the autoscaler takes for unready) waits
    // scale-down-unready-time instead (eligibility.go).
    const SimDuration wait = ca_ready(cluster_.node(c.node)) ? settings_.scale_down_unneeded_time
                                                             : settings_.scale_down_unready_time;
    if (!(unneeded_since_.at(c.node) + wait < now)) continue;
    if (size[c.group] - 1 < asgs_[c.group]->group().min_size) continue;
    if (!c.empty && drain_budget <= 0) continue;
    --size[c.group];
    --budget;
    if (!c.empty) --drain_budget;
    asgs_[c.group]->detach(c.node);
    unneeded_since_.erase(c.node);
    deleting_.push_back(c.node);
    last_scale_down_delete_ = now;
    termination_.delete_node(
        c.node, c.empty ? NodeDeletionReason::ScaleDownEmpty : NodeDeletionReason::ScaleDown,
        DrainLimits{.termination_grace_period =
                        kMaxPodEvictionTime + settings_.max_graceful_termination});
  }
}

}  // namespace fleetsim
