#include "fleetsim/workload/job_checkpoints.hpp"

#include <algorithm>

namespace fleetsim {

SimDuration JobCheckpoints::saved_work(const Pod& pod, SimTime now) const {
  auto it = pods_.find(pod.id);
  if (it == pods_.end()) return SimDuration{0};
  const PodCheckpoint& c = it->second;
  const SimDuration ran = std::max(SimDuration{0}, now - pod.bound_at - c.restart_overhead);
  const SimDuration done = c.resumed_from + ran;
  return std::max(c.resumed_from, done / c.interval * c.interval);
}

SimDuration JobCheckpoints::resumed_from(PodId pod) const {
  auto it = pods_.find(pod);
  return it == pods_.end() ? SimDuration{0} : it->second.resumed_from;
}

SimDuration JobCheckpoints::restart_overhead(PodId pod) const {
  auto it = pods_.find(pod);
  return it == pods_.end() ? SimDuration{0} : it->second.restart_overhead;
}

}  // namespace fleetsim
