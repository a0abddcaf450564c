#include "fleetsim/k8s/cluster.hpp"

#include <algorithm>

namespace fleetsim {

WorkloadId Cluster::add_workload(WorkloadRecord record) {
  const WorkloadId id = next_workload_id_++;
  workloads_.emplace_hint(workloads_.end(), id, std::move(record));
  return id;
}

NodeId Cluster::add_node(Node n) {
  ++revision_;
  mark_unconsolidated(n.created);
  n.id = static_cast<NodeId>(nodes_.size());
  active_.push_back(n.id);
  nodes_.push_back(std::move(n));
  return nodes_.back().id;
}

PodId Cluster::add_pod(Pod p) {
  ++revision_;
  ++pod_status_revision_;
  p.id = next_pod_id_++;
  FLEETSIM_ASSERT(p.phase == PodPhase::Pending);
  pending_.push_back(p.id);
  const PodId id = p.id;
  Pod& stored = pods_.emplace_hint(pods_.end(), id, std::move(p))->second;
  index_.add(id, &stored);
  return id;
}

void Cluster::ended(PodId pod) { ended_.push_back(pod); }

SimTime Cluster::consolidation_state(SimTime now) const {
  if (now - consolidation_state_ >= kConsolidationStateTtl) consolidation_state_ = now;
  return consolidation_state_;
}

std::optional<SimTime> Cluster::peek_consolidation_state(SimTime now) const {
  if (now - consolidation_state_ >= kConsolidationStateTtl) return std::nullopt;
  return consolidation_state_;
}

void Cluster::mark_unconsolidated(SimTime now) {
  consolidation_state_ = std::max(consolidation_state_, now);
}

void Cluster::release(PodId pod) {
  Pod& p = at(pod);
  FLEETSIM_ASSERT(p.holds > 0);
  if (--p.holds == 0 && (p.phase == PodPhase::Succeeded || p.phase == PodPhase::Deleted))
    ended(pod);
}

std::vector<WorkloadId> Cluster::collect() {
  std::vector<WorkloadId> workloads;
  for (PodId id : ended_) {
    auto it = pods_.find(id);
    if (it == pods_.end() || it->second.holds > 0) continue;  // gone already, or held
    workloads.push_back(it->second.workload);
    index_.erase(id);
    pods_.erase(it);
  }
  ended_.clear();
  return workloads;
}

void Cluster::node_launched(NodeId node, SimTime now) {
  ++revision_;
  Node& n = nodes_[node];
  n.phase = NodePhase::Launched;
  n.billed_from = now;
}

void Cluster::node_registered(NodeId node) {
  ++revision_;
  nodes_[node].phase = NodePhase::Registered;
}

void Cluster::node_initialized(NodeId node, SimTime now) {
  ++revision_;
  mark_unconsolidated(now);
  Node& n = nodes_[node];
  n.phase = NodePhase::Initialized;
  n.initialized = true;
  n.initialized_at = now;
  n.last_pod_event = now;
}

void Cluster::configure_gpus(NodeId node) {
  Node& n = nodes_[node];
  if (!n.gpu_setup.allocatable) return;
  ++revision_;
  n.allocatable = *n.gpu_setup.allocatable;
  n.dra_allocated.assign(n.gpu_setup.dra_devices.size(), 0);
  for (const auto& [key, value] : n.gpu_setup.labels) n.labels.add(key, Requirement::single(value));
}

void Cluster::begin_node_deletion(NodeId node, SimTime now, SimTime terminates_at,
                                  NodeDeletionReason reason) {
  ++revision_;
  mark_unconsolidated(now);
  Node& n = nodes_[node];
  FLEETSIM_ASSERT(n.is_live());
  n.phase = NodePhase::Deleting;
  n.deleting_at = now;
  n.terminates_at = terminates_at;
  n.termination_reason = reason;
}

void Cluster::instance_terminating(NodeId node, SimTime now) {
  ++revision_;
  nodes_[node].instance_terminating = true;
  nodes_[node].billing_stopped_at = now;
}

void Cluster::pod_event(Node& n, const Pod& pod, SimTime now) {
  auto w = workloads_.find(pod.workload);
  if (w != workloads_.end() && w->second.kind == WorkloadKind::DaemonSet) return;
  if (n.pod_event_recorded && now - n.last_pod_event < kPodEventDedupe) return;
  n.last_pod_event = now;
  n.pod_event_recorded = true;
}

void Cluster::node_terminated(NodeId node, SimTime now) {
  ++revision_;
  mark_unconsolidated(now);
  Node& n = nodes_[node];
  n.phase = NodePhase::Terminated;
  n.terminated_at = now;
  active_.erase(std::lower_bound(active_.begin(), active_.end(), node));
  // A month launches thousands of nodes: a gone node keeps what bills and reports it (its name,
  // type, zone, times, price), not its labels, taints and pod list, which nothing reads again.
  n.labels = Requirements{};
  std::vector<Taint>().swap(n.taints);
  std::vector<PodId>().swap(n.pods);
}

void Cluster::bind(PodId pod_id, NodeId node_id, SimTime now) {
  ++revision_;
  mark_unconsolidated(now);
  Pod& p = at(pod_id);
  Node& n = nodes_[node_id];
  FLEETSIM_ASSERT(p.node == kNoNode && p.phase == PodPhase::Pending);
  p.node = node_id;
  p.nominated = kNoNode;
  p.nominated_node_name = kNoNode;
  p.phase = PodPhase::Running;
  p.bound_at = now;
  pending_.erase(std::lower_bound(pending_.begin(), pending_.end(), pod_id));
  p.pending_reason.clear();
  n.requested += p.spec->requests;
  n.scoring_requested += p.spec->scoring_requests();
  lowest_bound_priority_ = std::min(lowest_bound_priority_, p.spec->priority);
  if (!p.spec->pod_anti_affinity.required.empty()) ++bound_with_anti_affinity_;
  if (!p.spec->pod_affinity.empty() || !p.spec->pod_anti_affinity.empty())
    ++bound_with_affinity_terms_;
  n.pods.push_back(pod_id);
  if (!p.spec->resource_claims.empty()) allocate_claims(p, n);
  pod_event(n, p, now);
}

void Cluster::unbind(PodId pod_id, SimTime now) {
  Pod& p = at(pod_id);
  if (p.node == kNoNode) return;
  Node& n = nodes_[p.node];
  n.requested -= p.spec->requests;
  n.scoring_requested -= p.spec->scoring_requests();
  if (!p.spec->pod_anti_affinity.required.empty()) --bound_with_anti_affinity_;
  if (!p.spec->pod_affinity.empty() || !p.spec->pod_anti_affinity.empty())
    --bound_with_affinity_terms_;
  n.pods.erase(std::find(n.pods.begin(), n.pods.end(), pod_id));
  if (!p.spec->resource_claims.empty()) deallocate_claims(p);
  pod_event(n, p, now);
  p.node = kNoNode;
  p.started = false;
  p.ready = false;
}

void Cluster::finish(PodId pod, PodPhase phase, SimTime now, bool object_lingers) {
  ++revision_;
  ++pod_status_revision_;
  // A Succeeded pod stays an object.
  if (phase == PodPhase::Deleted && !object_lingers) mark_unconsolidated(now);
  FLEETSIM_ASSERT(phase == PodPhase::Succeeded || phase == PodPhase::Deleted);
  unbind(pod, now);
  at(pod).phase = phase;
  ended(pod);
}

void Cluster::delete_pending(PodId pod_id) {
  ++revision_;
  ++pod_status_revision_;
  auto it = std::lower_bound(pending_.begin(), pending_.end(), pod_id);
  if (it != pending_.end() && *it == pod_id) pending_.erase(it);
  Pod& p = at(pod_id);
  p.nominated = kNoNode;
  p.nominated_node_name = kNoNode;
  p.phase = PodPhase::Deleted;
  ended(pod_id);
}

bool Node::marked_for_disruption() const {
  return std::any_of(taints.begin(), taints.end(),
                     [](const Taint& t) { return t.key == kDisruptedTaintKey; });
}

void Cluster::mark_for_disruption(NodeId node) {
  ++revision_;
  Node& n = nodes_[node];
  FLEETSIM_ASSERT(n.is_live() && !n.marked_for_disruption());
  n.taints.push_back(
      Taint{.key = std::string(kDisruptedTaintKey), .effect = TaintEffect::NoSchedule});
}

void Cluster::unmark_for_disruption(NodeId node) {
  ++revision_;
  Node& n = nodes_[node];
  std::erase_if(n.taints, [](const Taint& t) { return t.key == kDisruptedTaintKey; });
}

void Cluster::clear_nominations_to(NodeId node) {
  for (PodId p : pending_)
    if (Pod& pod = at(p); pod.nominated == node) pod.nominated = kNoNode;
}

void Cluster::pod_terminating(PodId pod, SimTime now) {
  ++revision_;
  ++pod_status_revision_;
  Pod& p = at(pod);
  p.terminating = true;
  if (p.node != kNoNode) pod_event(nodes_[p.node], p, now);
}

void Cluster::pod_preempted(PodId pod, SimTime now) {
  at(pod).preempted = true;
  pod_terminating(pod, now);
}

void Cluster::pod_ready(PodId pod, SimTime now) {
  ++pod_status_revision_;
  Pod& p = at(pod);
  p.ready = true;
  p.ready_at = now;
}

}  // namespace fleetsim
