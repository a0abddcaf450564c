// Karpenter's disruption controller: expiration, then an ordered list of disruption methods
// feeding one orchestration queue.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fleetsim/disruption/disruption_method.hpp"
#include "fleetsim/disruption/orchestration_queue.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// Disruption poll period when no method acted (core:pkg/controllers/disruption/controller.go).
inline constexpr SimDuration kDisruptionPollPeriod = seconds(10);
// Calendar time of simulated t = 0 unless a scenario says otherwise: Monday 2024-01-01T00:00Z.
inline constexpr std::int64_t kDefaultStartUnixSeconds = 1'704'067'200;

// Every 10 s: expired NodeClaims are deleted; then, unless a command is being validated, the
// methods are asked in order (emptiness today; Karpenter's order goes on with drift, multi-node
// and single-node consolidation) and the first with a command hands it to the queue.
class DisruptionController : private EventHandler {
 public:
  DisruptionController(Simulation& sim, const Cluster& cluster, NodeTermination& termination,
                       const std::vector<NodePool>& pools, std::int64_t start_unix_s);
  void start();

 private:
  void on_event(SimTime now, std::uint64_t tag) override;

  Simulation& sim_;
  const Cluster& cluster_;
  NodeTermination& termination_;
  const std::vector<NodePool>& pools_;
  std::int64_t start_unix_s_;
  std::vector<std::unique_ptr<DisruptionMethod>> methods_;
  OrchestrationQueue queue_;
};

}  // namespace fleetsim
