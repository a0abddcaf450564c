// kube-scheduler's scheduling queue (pkg/scheduler/backend/queue/scheduling_queue.go): which
// pending pods a pass tries, and when a pod that failed is tried again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// A pod that fails goes to the unschedulable pool. An event that may help it (a node added or
// changed, a pod gone) moves it back: to the active queue if its backoff is over, else to the
// backoff queue until it is. The backoff is 1 s doubling per attempt up to 10 s, from its last
// failure. A flush every 30 s moves back pods unschedulable for over 5 minutes. Active pods are
// tried in PrioritySort order: priority, then the time they were queued (created, or failed).
class SchedulingQueue {
 public:
  static constexpr SimDuration kInitialBackoff = seconds(1);
  static constexpr SimDuration kMaxBackoff = seconds(10);
  static constexpr SimDuration kUnschedulableTimeout = minutes(5);
  static constexpr SimDuration kLeftoverFlushPeriod = seconds(30);

  // The pending pods to try now, in order; forgets pods no longer pending.
  void active(const Cluster& cluster, SimTime now, std::vector<const Pod*>& out);
  // The pod was tried and fits nowhere, or (`permit_rejected`) it waited at Permit and was
  // rejected: only the GangScheduling plugin's events (activate()) or the leftover flush bring
  // such a pod back, as its queueing hints register no node or pod-deletion event.
  void failed(const Pod& pod, SimTime now, bool permit_rejected = false);
  // MoveAllToActiveOrBackoffQueue, for the unschedulable pods `helps` selects (all when empty).
  void move(const Cluster& cluster, const std::function<bool(const Pod&)>& helps = {});
  // Activate: the unschedulable or backing-off pods `which` selects, Permit-rejected ones
  // included, go to the active queue at once (ForceActivate: no backoff).
  void activate(const Cluster& cluster, const std::function<bool(const Pod&)>& which);
  // flushUnschedulablePodsLeftover at `now`: pods unschedulable for over 5 minutes move back.
  void flush_leftover(SimTime now);
  // When the queue next has a pod to try without an event: a backoff ending, or a 30 s flush
  // that moves a pod; nullopt when never.
  std::optional<SimTime> next_wake(SimTime now) const;

  // How long a pod that has failed `attempts` times backs off (calculateBackoffDuration).
  static SimDuration backoff(std::uint32_t attempts);

 private:
  struct Entry {
    std::uint32_t attempts = 0;
    SimTime queued{};  // its last failure
    bool unschedulable = false;
    bool permit_rejected = false;
    bool activated = false;  // Activate()d since its last failure: its backoff is skipped
  };
  std::map<PodId, Entry> entries_;  // pods that have failed, while pending
  struct Key {
    std::int32_t priority = 0;
    SimTime queued{};
    const Pod* pod = nullptr;
  };
  std::vector<Key> keys_;  // scratch for active()
};

}  // namespace fleetsim
