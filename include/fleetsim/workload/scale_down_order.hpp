// Which pods a ReplicaSet deletes first when it scales down (Kubernetes' ActivePodsWithRanks).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// One of the ReplicaSet's active pods, as the ranking sees it.
struct ScaleDownCandidate {
  std::uint32_t id = 0;
  bool assigned = false;  // bound to a node
  bool running = false;   // containers started (phase Running, not Pending)
  bool ready = false;
  SimTime ready_since{};  // the Ready condition's transition time, when ready
  SimTime created{};
  std::int32_t colocated = 0;  // active pods of the same ReplicaSet on its node (itself included)
  std::string uid;             // the last tie-break
};

// Orders `pods` so the first ones are deleted first, as pkg/controller/controller_utils.go
// ranks them with the LogarithmicScaleDown gate on (default since 1.22): unassigned before
// assigned; Pending before Running; not ready before ready; more pods of the ReplicaSet on the
// same node first; then ready for less time, in log2 buckets of seconds, then newer, in the same
// buckets; ties by uid. (pod-deletion-cost and restart counts are not modelled.)
void sort_for_scale_down(std::span<ScaleDownCandidate> pods, SimTime now);

}  // namespace fleetsim
