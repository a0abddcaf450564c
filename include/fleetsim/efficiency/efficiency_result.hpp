// How far a run's instance cost is from what any policy must have paid for its demand.
#pragma once

namespace fleetsim {

// report.json's `efficiency` (README "How good is my fleet?"). Dollars of instances only:
// EBS volumes and EKS Auto Mode's fee are outside both the actual cost and the bounds.
struct EfficiencyResult {
  double actual_usd = 0.0;  // cost.on_demand_usd + cost.spot_usd
  // Each at most the instance cost of any policy that runs the same pods over the same
  // intervals on node kinds their pools allow; fluid ≤ packing.
  double fluid_usd = 0.0;
  double packing_usd = 0.0;
  double lower_bound_usd = 0.0;  // the tightest bound
  double gap_usd = 0.0;          // actual − lower bound
  double gap_share = 0.0;        // gap ÷ actual; 0 when nothing was billed
  // The gap in parts that add up to it.
  struct Parts {
    double idle_usd = 0.0;             // Ready nodes without pods
    double fragmentation_usd = 0.0;    // the share of nodes with pods that no pod requested
    double startup_usd = 0.0;          // billed before the node was Ready
    double billing_minimum_usd = 0.0;  // the 60-second minimum's top-up
    double capacity_type_usd = 0.0;    // on-demand paid where the pods allowed spot
    double type_choice_usd = 0.0;      // the rest: the pods' share over the lower bound
  } parts;
  // Node time the recorder billed itself (the parts' basis): equals actual_usd but for
  // rounding; the tests hold the two together.
  double accounted_usd = 0.0;
  // Pods that ran on a node kind their pools do not describe (the bound then allows it).
  long long kinds_added = 0;
  // The time each bound took (wall clock, this thread; the fluid bound's also records the
  // demand and splits the gap): shown on stderr by `run`, not in report.json, which must not
  // change from run to run.
  double fluid_seconds = 0.0;
  double packing_seconds = 0.0;  // the LP solves
};

}  // namespace fleetsim
