// kube-scheduler's GangScheduling plugin: a PodGroup's pods start together or not at all.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// The plugin (pkg/scheduler/framework/plugins/gangscheduling, its Permit form) and the pod
// group state it reads (the workload manager's podGroupInfo), for pods whose
// spec.schedulingGroup names a PodGroup with a gang policy:
// - PreEnqueue: a pod waits, untried, until its group has minCount pods (pending or bound); a
//   pod whose PodGroup does not exist waits for ever.
// - Reserve and Permit: a pod that fits a node is assumed there (its room kept) and waits until
//   minCount pods of its group are assumed or bound; then every assumed one binds at once.
// - The group's deadline is set by the first pod that waits (5 minutes) and renewed by the
//   first one to wait after it passed; when it passes short of the quorum, every waiting pod is
//   rejected: its room is given back and it goes to the unschedulable pool.
class GangGate {
 public:
  // DefaultSchedulingTimeoutDuration (workloadmanager/podgroupinfo.go).
  static constexpr SimDuration kSchedulingTimeout = minutes(5);

  struct Assumed {
    PodId pod = 0;
    NodeId node = kNoNode;
  };
  enum class Permit : std::uint8_t { NotAGang, Wait, Allow };

  // On only for scenarios with gangs: refresh() walks every pod.
  void enable() { enabled_ = true; }
  bool enabled() const { return enabled_; }

  // Recounts each group's pods (pending or bound) and its bound ones; forgets assumed pods that
  // are no longer pending. Returns the assumed pods whose node is no longer Initialized (going
  // away): the caller rejects them with reject().
  const std::vector<Assumed>& refresh(const Cluster& cluster);
  // PreEnqueue: whether the pod may be tried.
  bool admits(const Pod& pod) const;
  // Reserve and Permit for `pod`, placed on `node` at `now`. On Allow, take_allowed() gives the
  // group's assumed pods (this one among them) to bind.
  Permit reserve(const Pod& pod, NodeId node, SimTime now);
  std::vector<Assumed> take_allowed(const Pod& pod);
  // The groups whose deadline has come with pods still waiting: each one's waiting pods, which
  // are forgotten here (the caller rejects them).
  std::vector<std::pair<std::string, std::vector<Assumed>>> expire(SimTime now);
  // Gives up one assumed pod (its node went away).
  void reject(PodId pod);
  // The next deadline of a group with waiting pods.
  std::optional<SimTime> next_deadline() const;

  // The room kept on a node for pods waiting there; whether any pod waits anywhere.
  bool any_assumed() const { return assumed_count_ > 0; }
  Resources reserved(NodeId node) const {
    return node < reserved_.size() ? reserved_[node] : Resources{};
  }
  // Whether `a` and `b` are of one PodGroup (gang or not).
  static bool same_group(const Pod& a, const Pod& b) {
    return !a.spec->pod_group.empty() && a.spec->pod_group == b.spec->pod_group &&
           a.namespace_name == b.namespace_name;
  }
  // The group's name as PodGroup events give it: namespace/name.
  static std::string key(const Pod& pod) { return pod.namespace_name + "/" + pod.spec->pod_group; }

 private:
  struct Group {
    std::int32_t min_count = 0;
    std::int32_t all = 0;       // pods pending or bound
    std::int32_t assigned = 0;  // bound
    std::vector<Assumed> assumed;
    std::optional<SimTime> deadline;
  };
  // Gives back the room kept for an assumed pod.
  void release(const Assumed& a);

  bool enabled_ = false;
  std::map<std::string, Group> groups_;  // by namespace/name
  std::vector<Resources> reserved_;      // by node
  std::size_t assumed_count_ = 0;
  std::vector<Assumed> going_;           // scratch for refresh()
  std::map<PodId, Resources> requests_;  // assumed pods' requests, to give back
};

}  // namespace fleetsim
