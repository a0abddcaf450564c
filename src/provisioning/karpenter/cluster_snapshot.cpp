#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"

#include "fleetsim/provisioning/solver_view.hpp"

namespace fleetsim {

ClusterSnapshot take_snapshot(const Cluster& cluster, const SchedulingContext& context,
                              std::span<const PendingPod> virtual_pods) {
  ClusterSnapshot s;
  for (PodId id : cluster.pending_pods()) {
    const Pod& p = cluster.pod(id);
    // No kube-scheduler profile takes it, so it never fails to schedule: Karpenter ignores it.
    if (p.spec->scheduler_profile < 0) continue;
    // IsProvisionable: not a pod preempting others, which kube-scheduler will bind where its
    // victims were (its victims' replacements are provisioned for instead).
    if (p.nominated_node_name != kNoNode) continue;
    // FailedToSchedule: a pod held at PreEnqueue (a gang short of pods) was never tried.
    if (p.gated) continue;
    // --ignore-dra-requests (true by default, the only setting fleetsim models): the scheduler's
    // add() fails such a pod with a DRAError before it looks at any node
    // (karpenter pkg/controllers/provisioning/scheduling/scheduler.go).
    if (!p.spec->resource_claims.empty()) {
      s.dra_ignored.push_back(p.id);
      continue;
    }
    s.pending.push_back(p.id);
    s.pods.push_back(pending_pod(p));
  }
  s.pending.insert(s.pending.end(), virtual_pods.size(), kVirtualPod);
  s.pods.insert(s.pods.end(), virtual_pods.begin(), virtual_pods.end());
  const std::size_t pool_count = context.pools().size();
  s.pool_usage.resize(pool_count);
  s.pool_nodes.resize(pool_count, 0);
  s.node_ids.reserve(cluster.active_nodes().size());
  s.nodes.reserve(cluster.active_nodes().size());
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    const NodePoolOwner* owner = n.nodepool();
    if (owner != nullptr) {
      s.pool_usage[owner->pool] += context.pools()[owner->pool].capacity[n.type];
      ++s.pool_nodes[owner->pool];
    }
    if (!n.is_live()) continue;
    s.node_ids.push_back(n.id);
    s.nodes.push_back(existing_node(n, n.available()));
  }
  add_bound_pods(cluster, s.node_ids, s.bound);
  return s;
}

}  // namespace fleetsim
