#include "fleetsim/kube/scheduling_queue.hpp"

#include <algorithm>
#include <tuple>

namespace fleetsim {

namespace {

// The first 30 s flush tick (from the start of the run) that finds a pod queued at `queued`
// unschedulable for over 5 minutes.
SimTime leftover_flush_after(SimTime queued) {
  const SimDuration due = queued - kSimStart + SchedulingQueue::kUnschedulableTimeout;
  const std::int64_t period = SchedulingQueue::kLeftoverFlushPeriod.count();
  return kSimStart + SimDuration((due.count() / period + 1) * period);
}

}  // namespace

SimDuration SchedulingQueue::backoff(std::uint32_t attempts) {
  SimDuration d = kInitialBackoff;
  for (std::uint32_t i = 1; i < attempts && d < kMaxBackoff; ++i) d *= 2;
  return std::min(d, kMaxBackoff);
}

void SchedulingQueue::active(const Cluster& cluster, SimTime now, std::vector<const Pod*>& out) {
  keys_.clear();
  auto entry = entries_.begin();
  for (PodId id : cluster.pending_pods()) {  // sorted by id, as entries_
    while (entry != entries_.end() && entry->first < id) entry = entries_.erase(entry);
    const Pod& pod = cluster.pod(id);
    SimTime queued = pod.created;
    if (entry != entries_.end() && entry->first == id) {
      const Entry& e = (entry++)->second;
      if (e.unschedulable || (!e.activated && e.queued + backoff(e.attempts) > now)) continue;
      queued = e.queued;
    }
    keys_.push_back({.priority = pod.spec->priority, .queued = queued, .pod = &pod});
  }
  entries_.erase(entry, entries_.end());
  std::stable_sort(keys_.begin(), keys_.end(), [](const Key& a, const Key& b) {
    return std::tie(b.priority, a.queued) < std::tie(a.priority, b.queued);
  });
  out.clear();
  for (const Key& k : keys_) out.push_back(k.pod);
}

void SchedulingQueue::failed(const Pod& pod, SimTime now, bool permit_rejected) {
  Entry& e = entries_[pod.id];
  ++e.attempts;
  e.queued = now;
  e.unschedulable = true;
  e.permit_rejected = permit_rejected;
  e.activated = false;
}

void SchedulingQueue::move(const Cluster& cluster, const std::function<bool(const Pod&)>& helps) {
  for (auto& [id, e] : entries_) {
    if (!e.unschedulable || e.permit_rejected) continue;
    const Pod* pod = cluster.find_pod(id);
    if (pod != nullptr && (!helps || helps(*pod))) e.unschedulable = false;
  }
}

void SchedulingQueue::activate(const Cluster& cluster,
                               const std::function<bool(const Pod&)>& which) {
  for (auto& [id, e] : entries_) {
    const Pod* pod = cluster.find_pod(id);
    if (pod == nullptr || !which(*pod)) continue;
    e.unschedulable = e.permit_rejected = false;
    e.activated = true;
  }
}

void SchedulingQueue::flush_leftover(SimTime now) {
  for (auto& [id, e] : entries_)
    if (e.unschedulable && now - e.queued > kUnschedulableTimeout)
      e.unschedulable = e.permit_rejected = false;
}

std::optional<SimTime> SchedulingQueue::next_wake(SimTime now) const {
  std::optional<SimTime> wake;
  for (const auto& [id, e] : entries_) {
    const SimTime t =
        e.unschedulable ? leftover_flush_after(e.queued) : e.queued + backoff(e.attempts);
    if (t > now && (!wake || t < *wake)) wake = t;
  }
  return wake;
}

}  // namespace fleetsim
