// The time-sliced GPUs of a run: which serving replicas take turns on each physical GPU, and how
// fast each runs while k of them have work (time_sliced_speed(k)). Replicas of different services
// may share a GPU, so one registry serves every service of a run.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// Told when one of its replicas' speed changes. It must not call back into the registry.
class TimeSliceClient {
 public:
  // Replica `key` runs at `speed` of the GPU from `now` on.
  virtual void on_speed(std::uint32_t key, double speed, SimTime now) = 0;

 protected:
  ~TimeSliceClient() = default;
};

class TimeSlicedGpus;

// Where a pod sits: a node (the caller's id) whose time-sliced devices come from `node_gpus`
// physical GPUs (MIG devices, when a MIG layout is time-sliced).
struct TimeSliceSeat {
  std::uint64_t node = 0;
  std::uint32_t node_gpus = 1;
};

// A replica's place in the registry (ReplicaSpec::time_slice); no registry: a whole device.
struct TimeSlice {
  TimeSlicedGpus* gpus = nullptr;
  std::uint32_t handle = 0;
};

class TimeSlicedGpus {
 public:
  using Handle = std::uint32_t;

  // A pod takes its device on one of the node's GPUs, from its binding until it goes (leave).
  // The device plugin hands out a replicated resource's devices from the GPU with the fewest of
  // its replicas allocated, the lowest index among equals (k8s-device-plugin's distributedAlloc).
  // A pod of several devices is seated on its first device's GPU.
  Handle join(const TimeSliceSeat& seat);
  void leave(Handle h);
  // The serving replica in the pod, told of its speed as `key` (until detach; idle then).
  void attach(Handle h, TimeSliceClient& client, std::uint32_t key);
  void detach(Handle h);
  // The share of the GPU's memory the pod's server holds (vLLM's gpu_memory_utilization), from
  // when it started until it goes; and what the others on its GPU hold.
  void hold_memory(Handle h, double share) { members_[h].memory = share; }
  double memory_of_others(Handle h) const;
  // The replica has work (requests in flight) or none from `now` on: every replica with work on
  // its GPU whose speed changes hears it, this one too.
  void set_busy(Handle h, bool busy, SimTime now);

  // The replica's speed while it last had work (1 before).
  double speed(Handle h) const { return members_[h].speed; }
  // The fluid mode's replicas have work a share of the time rather than now or not: the share of
  // the last piece. A request-level replica's share is 1 while it has work, 0 while not.
  void set_busy_share(Handle h, double share) { members_[h].share = share; }
  // The replica's expected speed while it has work: time_sliced_speed(1 + B), B the others on
  // its GPU with work, each independently with its share (a Poisson-binomial count).
  double expected_speed(Handle h) const;
  std::uint32_t gpu_of(Handle h) const { return groups_[members_[h].group].gpu; }
  // Replicas with work on the replica's GPU now.
  std::uint32_t busy_on_gpu_of(Handle h) const { return groups_[members_[h].group].busy; }

 private:
  static constexpr std::uint32_t kNone = 0xffff'ffff;
  struct Group {  // one physical GPU
    std::uint32_t gpu = 0;
    std::uint32_t busy = 0;
    std::vector<Handle> members;
  };
  struct Member {
    std::uint32_t group = kNone;
    TimeSliceClient* client = nullptr;
    std::uint32_t key = 0;
    bool busy = false;
    double speed = 1.0;
    double share = 0;
    double memory = 0;
    std::uint32_t next_free = kNone;
  };

  std::vector<Group> groups_;
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t> group_of_;  // (node, gpu)
  std::vector<Member> members_;
  Handle free_ = kNone;
  mutable std::vector<double> scratch_;  // expected_speed's distribution
};

}  // namespace fleetsim
