#include "fleetsim/k8s/cluster.hpp"

#include <algorithm>

namespace fleetsim {

NodeId Cluster::add_node(Node n) {
  n.id = static_cast<NodeId>(nodes_.size());
  active_.push_back(n.id);
  nodes_.push_back(std::move(n));
  return nodes_.back().id;
}

PodId Cluster::add_pod(Pod p) {
  p.id = static_cast<PodId>(pods_.size());
  FLEETSIM_ASSERT(p.phase == PodPhase::Pending);
  pending_.push_back(p.id);
  pods_.push_back(std::move(p));
  return pods_.back().id;
}

void Cluster::bind(PodId pod_id, NodeId node_id, SimTime now) {
  Pod& p = pods_[pod_id];
  Node& n = nodes_[node_id];
  FLEETSIM_ASSERT(p.node == kNoNode && p.phase == PodPhase::Pending);
  p.node = node_id;
  p.nominated = kNoNode;
  p.phase = PodPhase::Running;
  p.bound_at = now;
  pending_.erase(std::lower_bound(pending_.begin(), pending_.end(), pod_id));
  p.pending_reason.clear();
  n.requested += p.spec->requests;
  n.pods.push_back(pod_id);
  n.last_pod_event = now;
}

void Cluster::mark_terminated(NodeId node) {
  nodes_[node].phase = NodePhase::Terminated;
  active_.erase(std::lower_bound(active_.begin(), active_.end(), node));
}

void Cluster::unbind(PodId pod_id, SimTime now) {
  Pod& p = pods_[pod_id];
  if (p.node == kNoNode) return;
  Node& n = nodes_[p.node];
  n.requested -= p.spec->requests;
  n.pods.erase(std::find(n.pods.begin(), n.pods.end(), pod_id));
  n.last_pod_event = now;
  p.node = kNoNode;
  p.started = false;
  p.ready = false;
}

void Cluster::remove_pending(PodId pod_id) {
  auto it = std::lower_bound(pending_.begin(), pending_.end(), pod_id);
  if (it != pending_.end() && *it == pod_id) pending_.erase(it);
  pods_[pod_id].nominated = kNoNode;
}

}  // namespace fleetsim
