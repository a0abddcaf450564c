// What the Job controller keeps about the pods of Jobs that checkpoint their work: where each
// pod resumed and what reloading costs it, so that the work an evicted pod saved can be told.
#pragma once

#include <map>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

struct PodCheckpoint {
  SimDuration resumed_from{0};      // its job's work already saved when it started
  SimDuration restart_overhead{0};  // the time it spends reloading that checkpoint first
  SimDuration interval{0};          // its job's checkpoint interval
};

class JobCheckpoints {
 public:
  void add(PodId pod, PodCheckpoint checkpoint) { pods_.insert_or_assign(pod, checkpoint); }
  void remove(PodId pod) { pods_.erase(pod); }

  // The work the pod's job has saved when the pod stops at `now`: the work done (where the pod
  // resumed from, plus what it ran after reloading) rounded down to whole checkpoint intervals,
  // and never below where it resumed. A pod of a Job without checkpoints saves nothing.
  SimDuration saved_work(const Pod& pod, SimTime now) const;
  SimDuration resumed_from(PodId pod) const;
  SimDuration restart_overhead(PodId pod) const;

 private:
  std::map<PodId, PodCheckpoint> pods_;  // the checkpointing Jobs' pods not yet ended
};

}  // namespace fleetsim
