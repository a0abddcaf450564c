// The Cluster Autoscaler's exponential backoff of node groups whose scale-up failed
// (utils/backoff/exponential_backoff.go).
#pragma once

#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// After a group's node stops being stale (3 h since its last failure) the group starts over.
inline constexpr SimDuration kNodeGroupBackoffReset = hours(3);

class NodeGroupBackoff {
 public:
  NodeGroupBackoff(std::size_t groups, SimDuration initial, SimDuration max)
      : initial_(initial), max_(max), entries_(groups) {}

  // A failure at `now`: the first backs off for the initial duration; a later one doubles the
  // last duration (up to the max) if the last backoff had ended, else repeats it.
  void fail(std::size_t group, SimTime now);
  // Backed off until `until` inclusive (upstream: !(until < now)); entries 3 h past their last
  // failure are forgotten.
  bool backed_off(std::size_t group, SimTime now);

 private:
  struct Entry {
    bool set = false;
    SimDuration duration{};
    SimTime until{};
    SimTime last_failure{};
  };
  SimDuration initial_;
  SimDuration max_;
  std::vector<Entry> entries_;
};

}  // namespace fleetsim
