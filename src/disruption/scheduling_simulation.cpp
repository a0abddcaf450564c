#include "fleetsim/disruption/scheduling_simulation.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "fleetsim/provisioning/solver_view.hpp"

namespace fleetsim {

double cheapest_offering_price(const SchedulingContext& context, CloudProvider& cloud,
                               std::uint32_t pool, std::uint32_t type, const Requirements& r) {
  const std::uint64_t zones = context.zone_mask(r);
  const std::uint8_t capacity = SchedulingContext::capacity_mask(r);
  const std::span<const std::uint8_t> usable = cloud.usable_offerings();
  double best = std::numeric_limits<double>::infinity();
  for (const OfferingRef& o : context.offerings(type)) {
    if (!(o.capacity & capacity) || !(zones >> o.zone & 1ULL)) continue;
    if ((!usable.empty() && usable[o.global] == 0) || !pool_offers(context, pool, o.global))
      continue;
    best = std::min(best, context.pool_price(pool, o.global, cloud.price(o.global)));
  }
  return best;
}

SchedulingSimulation::SchedulingSimulation(const Cluster& cluster,
                                           const KarpenterProvisioner& provisioner,
                                           CloudProvider& cloud)
    : cluster_(cluster), provisioner_(provisioner), cloud_(cloud) {}

SchedulingSimulation::~SchedulingSimulation() = default;

void SchedulingSimulation::take_snapshot_at(SimTime now) {
  if (revision_ == cluster_.revision() &&
      buffers_generation_ == provisioner_.buffers_generation() &&
      pools_generation_ == provisioner_.generation()) {
    if (time_ != now) mark_consolidate_after(now);
    return;
  }
  revision_ = cluster_.revision();
  buffers_generation_ = provisioner_.buffers_generation();
  pools_generation_ = provisioner_.generation();
  answers_.clear();
  if (context_ != &provisioner_.context()) {
    context_ = &provisioner_.context();
    scheduler_ = std::make_unique<Scheduler>(*context_);
  }
  // GetPendingPods injects the CapacityBuffers' virtual pods: pending like the others, so they
  // may fail to fit (AllNonPendingPodsScheduled), but any NodeClaim they need is a replacement.
  snapshot_ = take_snapshot(cluster_, *context_, provisioner_.virtual_pods());
  pending_count_ = snapshot_.pods.size();
  slot_of_node_.assign(cluster_.nodes().size(), UINT32_MAX);
  removed_.assign(snapshot_.nodes.size(), 0);
  for (std::uint32_t i = 0; i < snapshot_.node_ids.size(); ++i) {
    const Node& n = cluster_.node(snapshot_.node_ids[i]);
    slot_of_node_[n.id] = i;
    // Nodes a command holds are on their way out: their pods move like a deleting node's.
    removed_[i] = n.marked_for_disruption() ? 1 : 0;
  }
  under_consolidate_after_.clear();
  mark_consolidate_after(now);
  dra_in_base_ = false;
  // Pods of deleting nodes (and of nodes a command holds) are rescheduled in the simulation too.
  for (NodeId id : cluster_.active_nodes()) {
    const Node& n = cluster_.node(id);
    if (n.phase != NodePhase::Deleting && !n.marked_for_disruption()) continue;
    for (PodId p : n.pods) {
      const Pod& pod = cluster_.pod(p);
      if (pod.terminating) continue;
      dra_in_base_ = dra_in_base_ || !pod.spec->resource_claims.empty();
      snapshot_.pending.push_back(p);
      snapshot_.pods.push_back(pending_pod(pod));
    }
  }
  base_pod_count_ = snapshot_.pods.size();
  base_reads_bound_ =
      std::any_of(snapshot_.pods.begin(), snapshot_.pods.end(), reads_bound_pods) ||
      std::any_of(snapshot_.bound.begin(), snapshot_.bound.end(), repels_pending_pods);
  node_order_ = solver_node_order(snapshot_.nodes);
  node_zones_ = solver_node_zones(*context_, snapshot_.nodes);
}

// The nodes still inside their pool's consolidateAfter: the only part of the snapshot that
// moves with time alone.
void SchedulingSimulation::mark_consolidate_after(SimTime now) {
  time_ = now;
  const std::vector<NodePool>& pools = provisioner_.nodepools();
  bool changed = under_consolidate_after_.size() != snapshot_.node_ids.size();
  under_consolidate_after_.resize(snapshot_.node_ids.size());
  for (std::uint32_t i = 0; i < snapshot_.node_ids.size(); ++i) {
    const Node& n = cluster_.node(snapshot_.node_ids[i]);
    const NodePoolOwner* owner = n.nodepool();
    const auto& after = owner == nullptr ? std::optional<SimDuration>()
                                         : pools[owner->pool].disruption.consolidate_after;
    const std::uint8_t inside = n.phase == NodePhase::Initialized && after &&
                                *after > SimDuration{0} && now - n.last_pod_event < *after;
    changed |= under_consolidate_after_[i] != inside;
    under_consolidate_after_[i] = inside;
  }
  if (changed) answers_.clear();
}

void SchedulingSimulation::check_offerings(std::span<const std::uint8_t> usable,
                                           std::span<const double> prices, std::uint64_t revision) {
  // The same revision: the same offerings and prices, without comparing thousands of them.
  if (revision != 0 && revision == answers_revision_) return;
  answers_revision_ = revision;
  const bool same =
      std::equal(usable.begin(), usable.end(), answers_usable_.begin(), answers_usable_.end()) &&
      prices.size() == answers_prices_.size() &&
      (prices.empty() ||
       std::memcmp(prices.data(), answers_prices_.data(), prices.size_bytes()) == 0);
  if (same) return;
  answers_.clear();
  answers_usable_.assign(usable.begin(), usable.end());
  answers_prices_.assign(prices.begin(), prices.end());
}

const SchedulingSimulation::Answer* SchedulingSimulation::kept(
    std::span<const Candidate> candidates, bool consolidation) const {
  for (const Answer& a : answers_) {
    if (a.consolidation != consolidation || a.nodes.size() != candidates.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < candidates.size() && same; ++i)
      same = a.nodes[i] == candidates[i].node && a.pods[i] == candidates[i].pods;
    if (same) return &a;
  }
  return nullptr;
}

const std::optional<std::vector<NewNodeClaim>>& SchedulingSimulation::run(
    std::span<const Candidate> candidates, bool consolidation, SimTime now) {
  static const std::optional<std::vector<NewNodeClaim>> kNoPlace;
  take_snapshot_at(now);
  // With --ignore-dra-requests (upstream's default) a pod with ResourceClaims fails Karpenter's
  // simulation with a DRAError (scheduling/scheduler.go add), so no node it must leave passes
  // AllNonPendingPodsScheduled.
  if (dra_in_base_) return kNoPlace;
  for (const Candidate& c : candidates)
    for (PodId p : c.pods)
      if (!cluster_.pod(p).spec->resource_claims.empty()) return kNoPlace;
  const std::span<const std::uint8_t> usable = cloud_.usable_offerings();
  const std::span<const double> prices = cloud_.offering_prices();
  check_offerings(usable, prices, cloud_.offerings_revision());
  if (const Answer* a = kept(candidates, consolidation)) {
    if (a->claims) destinations_ = a->destinations;
    return a->claims;
  }
  Answer answer{.consolidation = consolidation,
                .claims = simulate(candidates, consolidation, usable, prices)};
  for (const Candidate& c : candidates) {
    answer.nodes.push_back(c.node);
    answer.pods.push_back(c.pods);
  }
  if (answer.claims) answer.destinations = destinations_;
  if (answers_.size() >= kKeptAnswers) answers_.clear();
  answers_.push_back(std::move(answer));
  return answers_.back().claims;
}

std::optional<std::vector<NewNodeClaim>> SchedulingSimulation::simulate(
    std::span<const Candidate> candidates, bool consolidation, std::span<const std::uint8_t> usable,
    std::span<const double> prices) {
  for (std::size_t i = 0; i < snapshot_.nodes.size(); ++i)
    snapshot_.nodes[i].under_consolidate_after = consolidation && under_consolidate_after_[i];
  snapshot_.pods.resize(base_pod_count_);
  snapshot_.pending.resize(base_pod_count_);
  for (const Candidate& c : candidates) {
    removed_[slot_of_node_[c.node]] = 1;
    for (PodId p : c.pods) {
      snapshot_.pending.push_back(p);
      snapshot_.pods.push_back(pending_pod(cluster_.pod(p), /*from_candidate=*/true));
    }
  }
  SolveInput input = snapshot_.input(usable, prices);
  const bool reads_bound =
      base_reads_bound_ ||
      std::any_of(snapshot_.pods.begin() + base_pod_count_, snapshot_.pods.end(), reads_bound_pods);
  if (!reads_bound) input.bound_pods = {};
  input.node_removed = removed_;
  input.node_order = node_order_;
  input.node_zones = node_zones_;
  SolveResult result = scheduler_->solve(input);
  for (const Candidate& c : candidates) removed_[slot_of_node_[c.node]] = 0;

  // Every pod but the pending ones must find a place (AllNonPendingPodsScheduled) ...
  for (const PodFailure& f : result.failures)
    if (f.pod >= pending_count_) return std::nullopt;
  // ... and a candidate's pod may not wait for a node that is not initialized yet.
  for (const Placement& pl : result.placements)
    if (pl.pod >= base_pod_count_ && !snapshot_.nodes[pl.node].initialized) return std::nullopt;
  destinations_.clear();
  for (const Placement& pl : result.placements)
    destinations_.push_back(snapshot_.node_ids[pl.node]);
  std::sort(destinations_.begin(), destinations_.end());
  destinations_.erase(std::unique(destinations_.begin(), destinations_.end()), destinations_.end());
  return std::move(result.claims);
}

}  // namespace fleetsim
