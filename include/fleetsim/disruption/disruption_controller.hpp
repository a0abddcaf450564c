// Karpenter's disruption controller: expiration, then an ordered list of disruption methods
// feeding one orchestration queue.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fleetsim/core/calendar.hpp"
#include "fleetsim/disruption/consolidation.hpp"
#include "fleetsim/disruption/disruption_method.hpp"
#include "fleetsim/disruption/orchestration_queue.hpp"
#include "fleetsim/engine/phase_offsets.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/kube/node_termination.hpp"
#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"

namespace fleetsim {

// Disruption poll period when no method acted (core:pkg/controllers/disruption/controller.go).
inline constexpr SimDuration kDisruptionPollPeriod = seconds(10);

// Every 10 s: expired NodeClaims are deleted; then, unless a command is being validated, the
// methods are asked in Karpenter's order (emptiness, drift, multi-node consolidation,
// single-node consolidation) and the first with a command hands it to the queue.
class DisruptionController : private EventHandler {
 public:
  struct Inputs {
    Simulation& sim;
    Cluster& cluster;
    ClusterBus& bus;
    CloudProvider& cloud;
    NodeTermination& termination;
    KarpenterProvisioner& provisioner;
    const PodDisruptionBudgets& pdbs;
    std::int64_t start_unix_s = kDefaultStartUnixSeconds;
    ConsolidationSettings consolidation;
    // The poll's phase: the first pass at poll_offset (at kDisruptionPollPeriod when 0).
    SimDuration poll_offset{0};
  };
  explicit DisruptionController(Inputs in);
  void start();

 private:
  void on_event(SimTime now, std::uint64_t tag) override;

  Inputs in_;
  std::vector<std::unique_ptr<DisruptionMethod>> methods_;
  OrchestrationQueue queue_;
};

}  // namespace fleetsim
