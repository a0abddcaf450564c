#include "fleetsim/kube/gang_gate.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

bool is_gang(const Pod& pod) {
  return !pod.spec->pod_group.empty() && pod.spec->gang_min_count != 0;
}

}  // namespace

const std::vector<GangGate::Assumed>& GangGate::refresh(const Cluster& cluster) {
  going_.clear();
  if (!enabled_) return going_;
  for (auto& [name, g] : groups_) g.all = g.assigned = 0;
  // podGroupInfo's allPods and assignedPods: the pods the scheduler knows, pending or bound.
  for (const Pod& p : cluster.pods()) {
    if (!is_gang(p) || p.spec->gang_min_count < 0) continue;
    if (p.phase != PodPhase::Pending && p.phase != PodPhase::Running) continue;
    Group& g = groups_[key(p)];
    g.min_count = p.spec->gang_min_count;
    ++g.all;
    if (p.phase == PodPhase::Running) ++g.assigned;
  }
  for (auto& [name, g] : groups_) {
    std::erase_if(g.assumed, [&](const Assumed& a) {
      const Pod* p = cluster.find_pod(a.pod);
      if (p != nullptr && p->phase == PodPhase::Pending) {
        if (cluster.node(a.node).phase != NodePhase::Initialized) going_.push_back(a);
        return false;
      }
      release(a);  // deleted while it waited (deletePod)
      return true;
    });
  }
  return going_;
}

bool GangGate::admits(const Pod& pod) const {
  if (!is_gang(pod)) return true;
  if (pod.spec->gang_min_count < 0) return false;  // its PodGroup does not exist
  const auto g = groups_.find(key(pod));
  return g != groups_.end() && g->second.all >= g->second.min_count;
}

GangGate::Permit GangGate::reserve(const Pod& pod, NodeId node, SimTime now) {
  if (!is_gang(pod)) return Permit::NotAGang;
  Group& g = groups_[key(pod)];
  g.assumed.push_back({.pod = pod.id, .node = node});
  if (reserved_.size() <= node) reserved_.resize(node + 1);
  reserved_[node] += pod.spec->requests;
  requests_[pod.id] = pod.spec->requests;
  ++assumed_count_;
  if (static_cast<std::int32_t>(g.assumed.size()) + g.assigned >= g.min_count) return Permit::Allow;
  // SchedulingTimeout: a deadline for the group, new if none or the last one passed (one that
  // is due at this very instant has passed: its wait has just ended).
  if (!g.deadline || *g.deadline <= now) g.deadline = now + kSchedulingTimeout;
  return Permit::Wait;
}

std::vector<GangGate::Assumed> GangGate::take_allowed(const Pod& pod) {
  Group& g = groups_[key(pod)];
  std::vector<Assumed> out = std::move(g.assumed);
  g.assumed.clear();
  for (const Assumed& a : out) release(a);
  return out;
}

std::vector<std::pair<std::string, std::vector<GangGate::Assumed>>> GangGate::expire(SimTime now) {
  std::vector<std::pair<std::string, std::vector<Assumed>>> out;
  for (auto& [name, g] : groups_) {
    if (g.assumed.empty() || !g.deadline || *g.deadline > now) continue;
    for (const Assumed& a : g.assumed) release(a);
    out.emplace_back(name, std::move(g.assumed));
    g.assumed.clear();
  }
  return out;
}

void GangGate::reject(PodId pod) {
  for (auto& [name, g] : groups_) {
    auto it = std::find_if(g.assumed.begin(), g.assumed.end(),
                           [&](const Assumed& a) { return a.pod == pod; });
    if (it == g.assumed.end()) continue;
    release(*it);
    g.assumed.erase(it);
    return;
  }
}

std::optional<SimTime> GangGate::next_deadline() const {
  std::optional<SimTime> next;
  for (const auto& [name, g] : groups_)
    if (!g.assumed.empty() && g.deadline && (!next || *g.deadline < *next)) next = g.deadline;
  return next;
}

void GangGate::release(const Assumed& a) {
  const auto it = requests_.find(a.pod);
  if (it == requests_.end()) return;
  reserved_[a.node] -= it->second;
  requests_.erase(it);
  --assumed_count_;
}

}  // namespace fleetsim
