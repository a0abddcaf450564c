#include "fleetsim/disruption/candidate.hpp"

#include <algorithm>
#include <cmath>

#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/k8s/pod_disruption.hpp"

namespace fleetsim {

double eviction_cost(const Pod& pod) {
  const double cost = 1.0 + static_cast<double>(pod.spec->priority) / std::ldexp(1.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

bool consolidatable(const Node& node, const NodePool& pool, SimTime now) {
  const auto& after = pool.disruption.consolidate_after;
  return after.has_value() && now - node.last_pod_event >= *after;
}

bool candidate_before(const Candidate& a, const Candidate& b, const Cluster& cluster,
                      bool by_ratio) {
  if (by_ratio) {
    const double ra = a.savings_ratio(), rb = b.savings_ratio();
    if (ra != rb) return ra > rb;
  } else if (a.disruption_cost != b.disruption_cost) {
    return a.disruption_cost < b.disruption_cost;
  }
  return cluster.node(a.node).name < cluster.node(b.node).name;
}

void sort_candidates(std::vector<Candidate>& candidates, const Cluster& cluster,
                     KarpenterVersion version) {
  const bool by_ratio = version.savings_ratio_order();
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    return candidate_before(a, b, cluster, by_ratio);
  });
}

double lifetime_remaining(const Node& node, const NodePool& pool, SimTime now) {
  if (!pool.expire_after) return 1.0;
  const double total = to_seconds(*pool.expire_after);
  return std::clamp((total - to_seconds(now - node.created)) / total, 0.0, 1.0);
}

std::vector<Candidate> disruption_candidates(const Cluster& cluster, const NodeClaims& claims,
                                             const CloudProvider& cloud,
                                             const PodDisruptionBudgets& pdbs,
                                             const std::vector<NodePool>& pools,
                                             DisruptionClass disruption_class, SimTime now,
                                             KarpenterVersion version, CandidateScope scope) {
  std::vector<Candidate> out;
  out.reserve(cluster.active_nodes().size());
  // A node's reschedulable pods are gathered here first: a node that turns out blocked or full
  // then allocates nothing.
  std::vector<PodId> pods;
  const bool ratio_order = version.savings_ratio_order();
  const auto is_empty = [&](const Candidate& c, const std::vector<PodId>& reschedulable) {
    return ratio_order ? c.reschedule_cost <= kPerNodeDisruptionCost : reschedulable.empty();
  };
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    const NodePoolOwner* owner = n.nodepool();
    if (owner == nullptr || n.phase != NodePhase::Initialized || n.marked_for_disruption() ||
        claims.at(id).nominated_until > now || n.do_not_disrupt)
      continue;
    Candidate c{.node = id, .pool = owner->pool};
    const bool pods_may_block = disruption_class == DisruptionClass::Graceful ||
                                !pools[owner->pool].termination_grace_period.has_value();
    bool blocked = false;
    bool full = false;
    pods.clear();
    for (PodId p : n.pods) {
      const Pod& pod = cluster.pod(p);
      const double cost = eviction_cost(pod);
      c.disruption_cost += cost;  // every pod counts, terminating ones too
      if (pod.terminating) continue;
      pods.push_back(p);
      c.reschedule_cost += std::max(0.0, cost);
      // Emptiness drops a node as soon as its pods make it non-empty: no further pod could
      // make it empty again.
      if (scope == CandidateScope::Empty && !is_empty(c, pods)) {
        full = true;
        break;
      }
      blocked |= pods_may_block && (do_not_disrupt_active(pod, now) || pdbs.blocking(pod));
    }
    if (blocked || full) continue;
    c.pods.assign(pods.begin(), pods.end());
    // Its offering's price as Karpenter lists it (a reservation's near-zero one), after the
    // NodePool's overlay: what a replacement is compared with, not what the node is billed.
    c.price = adjusted_price(cloud.price(offering_of(cloud.catalog(), n)), n.price_overlay);
    c.disruption_cost *= lifetime_remaining(n, pools[owner->pool], now);
    c.empty = is_empty(c, c.pods);
    out.push_back(std::move(c));
  }
  sort_candidates(out, cluster, version);
  return out;
}

}  // namespace fleetsim
