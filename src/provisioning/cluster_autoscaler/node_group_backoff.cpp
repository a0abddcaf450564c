#include "fleetsim/provisioning/cluster_autoscaler/node_group_backoff.hpp"

#include <algorithm>

namespace fleetsim {

void NodeGroupBackoff::fail(std::size_t group, SimTime now) {
  Entry& e = entries_[group];
  if (e.set && e.last_failure + kNodeGroupBackoffReset < now) e = Entry{};
  if (!e.set) {
    e.duration = initial_;
  } else if (e.until < now) {
    e.duration = std::min(e.duration * 2, max_);
  }
  e.set = true;
  e.until = now + e.duration;
  e.last_failure = now;
}

bool NodeGroupBackoff::backed_off(std::size_t group, SimTime now) {
  Entry& e = entries_[group];
  if (e.set && e.last_failure + kNodeGroupBackoffReset < now) e = Entry{};
  return e.set && !(e.until < now);
}

}  // namespace fleetsim
