// How long a launched instance takes to become a Ready node: plain data a scenario sets and the
// cloud provider reads.
#pragma once

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// Start-up phases after a launch (DESIGN.md §4.1): the instance runs and is billed (launch),
// the kubelet joins (registration), then the node is Ready with its GPUs advertised
// (initialization). The phases are medians: each node's are drawn (`draw_node_latency`) as the
// phases times one log-normal factor exp(sigma × z), so its launch-to-Ready time is log-normal
// with that median and sigma. A fixed phase takes no factor; sigma 0 fixes them all.
struct NodeLatency {
  SimDuration launch;
  SimDuration registration;    // after launch
  SimDuration initialization;  // after registration
  double sigma = 0;            // of the log-normal factor; 0: every node takes the phases as given
  bool launch_fixed = false;
  bool registration_fixed = false;
  bool initialization_fixed = false;
  friend bool operator==(const NodeLatency&, const NodeLatency&) = default;
};

// One node's phases for a standard normal draw `z`: each phase not fixed times exp(sigma × z),
// rounded to the microsecond (saturating). The result has sigma 0.
NodeLatency draw_node_latency(const NodeLatency& median, double z);

}  // namespace fleetsim
