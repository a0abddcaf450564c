#include "fleetsim/disruption/candidate_cache.hpp"

#include <algorithm>

#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/k8s/pod_disruption.hpp"

namespace fleetsim {

std::vector<Candidate> consolidation_candidates(const ConsolidationCandidateInputs& in,
                                                SimTime now) {
  std::vector<Candidate> all =
      disruption_candidates(in.cluster, in.claims, in.cloud, in.pdbs, in.pools,
                            DisruptionClass::Graceful, now, in.version);
  const bool drop_empty = in.version.savings_ratio_order();
  std::erase_if(all, [&](const Candidate& c) {
    const NodePool& pool = in.pools[c.pool];
    return (drop_empty && c.empty) || pool.disruption.policy == ConsolidationPolicy::WhenEmpty ||
           !consolidatable(in.cluster.node(c.node), pool, now);
  });
  return all;
}

bool CandidateCache::current(const ConsolidationCandidateInputs& in) const {
  // A PDB's status moves with pods turning Ready or unready, which the revision does not count.
  return valid_ && revision_ == in.cluster.revision() && pools_generation_ == in.pools_generation &&
         pools_ == &in.pools && by_ratio_ == in.version.savings_ratio_order() &&
         (in.pdbs.empty() || pod_status_revision_ == in.cluster.pod_status_revision());
}

// disruption_candidates' walk (graceful, every pod) less what moves with time, then
// consolidation's filters that do not: policy WhenEmpty, consolidateAfter Never, v1.14's empty.
void CandidateCache::rebuild(const ConsolidationCandidateInputs& in) {
  ++rebuilds_;
  valid_ = true;
  sorted_ = false;
  revision_ = in.cluster.revision();
  pod_status_revision_ = in.cluster.pod_status_revision();
  pools_generation_ = in.pools_generation;
  pools_ = &in.pools;
  by_ratio_ = in.version.savings_ratio_order();
  entries_.clear();
  dnd_pods_.clear();
  const Cluster& cluster = in.cluster;
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    const NodePoolOwner* owner = n.nodepool();
    if (owner == nullptr || n.phase != NodePhase::Initialized || n.marked_for_disruption() ||
        n.do_not_disrupt)
      continue;
    const NodePool& pool = in.pools[owner->pool];
    if (pool.disruption.policy == ConsolidationPolicy::WhenEmpty ||
        !pool.disruption.consolidate_after.has_value())
      continue;
    const auto dnd_begin = static_cast<std::uint32_t>(dnd_pods_.size());
    Entry e{.candidate = {.node = id, .pool = owner->pool}};
    bool blocked = false;
    scratch_.clear();
    for (PodId p : n.pods) {
      const Pod& pod = cluster.pod(p);
      const double cost = eviction_cost(pod);
      e.base_cost += cost;  // every pod counts, terminating ones too
      if (pod.terminating) continue;
      scratch_.push_back(p);
      e.candidate.reschedule_cost += std::max(0.0, cost);
      if (pod.spec->do_not_disrupt) dnd_pods_.push_back(p);  // weighed at each call
      if (in.pdbs.blocking(pod)) {
        blocked = true;
        break;
      }
    }
    e.candidate.empty =
        by_ratio_ ? e.candidate.reschedule_cost <= kPerNodeDisruptionCost : scratch_.empty();
    if (blocked || (by_ratio_ && e.candidate.empty)) {
      dnd_pods_.resize(dnd_begin);
      continue;
    }
    e.candidate.pods.assign(scratch_.begin(), scratch_.end());
    e.offering = offering_of(in.cloud.catalog(), n);
    e.dnd_begin = dnd_begin;
    e.dnd_end = static_cast<std::uint32_t>(dnd_pods_.size());
    entries_.push_back(std::move(e));
  }
}

void CandidateCache::candidates(const ConsolidationCandidateInputs& in, SimTime now,
                                std::vector<Candidate>& out) {
  if (!current(in)) rebuild(in);
  const Cluster& cluster = in.cluster;
  // The sort keys now: the offering's price (v1.14's savings ratio) or the disruption cost,
  // which the share of expireAfter left scales continuously (before).
  bool resort = !sorted_;
  for (Entry& e : entries_) {
    Candidate& c = e.candidate;
    const Node& n = cluster.node(c.node);
    const double price = adjusted_price(in.cloud.price(e.offering), n.price_overlay);
    const double cost = e.base_cost * lifetime_remaining(n, in.pools[c.pool], now);
    resort |= by_ratio_ ? price != c.price : cost != c.disruption_cost;
    c.price = price;
    c.disruption_cost = cost;
  }
  if (resort) {
    std::sort(entries_.begin(), entries_.end(), [&](const Entry& a, const Entry& b) {
      return candidate_before(a.candidate, b.candidate, cluster, by_ratio_);
    });
    sorted_ = true;
  }
  // The order is total (ties by name), so the candidates now keep it.
  std::size_t k = 0;
  for (const Entry& e : entries_) {
    const Candidate& c = e.candidate;
    if (in.claims.at(c.node).nominated_until > now) continue;
    if (std::any_of(dnd_pods_.begin() + e.dnd_begin, dnd_pods_.begin() + e.dnd_end,
                    [&](PodId p) { return do_not_disrupt_active(cluster.pod(p), now); }))
      continue;
    if (!consolidatable(cluster.node(c.node), in.pools[c.pool], now)) continue;
    if (k < out.size()) {
      out[k] = c;
    } else {
      out.push_back(c);
    }
    ++k;
  }
  out.resize(k);
}

}  // namespace fleetsim
