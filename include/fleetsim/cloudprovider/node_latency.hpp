// How long a launched instance takes to become a Ready node: plain data a scenario sets and the
// cloud provider reads.
#pragma once

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// Start-up phases after a launch (DESIGN.md §4.1): the instance runs and is billed (launch),
// the kubelet joins (registration), then the node is Ready with its GPUs advertised
// (initialization).
struct NodeLatency {
  SimDuration launch;
  SimDuration registration;    // after launch
  SimDuration initialization;  // after registration
  friend bool operator==(const NodeLatency&, const NodeLatency&) = default;
};

}  // namespace fleetsim
