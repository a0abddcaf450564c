// What node termination's timing depends on: Karpenter's MinDrainTime and the API's time.
#pragma once

#include "fleetsim/core/time.hpp"
#include "fleetsim/kube/api_latency.hpp"

namespace fleetsim {

struct TerminationSettings {
  // Karpenter's MinDrainTime (node/termination/controller.go, v1.10+; 0 before): a NodeClaim is
  // Drained no sooner than this after its drain began, so pods the scheduler bound before it
  // saw the taint are drained too. The Cluster Autoscaler has none.
  SimDuration min_drain_time = seconds(5);
  // The API's time for each Eviction, pod deletion and NodeClaim or Node deletion (zero here;
  // a scenario's default is kDefaultApiLatency).
  ApiLatency api_latency;
};

}  // namespace fleetsim
