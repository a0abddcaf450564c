// Karpenter's disruption controller: an ordered list of disruption methods feeding one
// orchestration queue.
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

// Karpenter's singleton loop (controller.go): a pass asks the methods in order (emptiness, drift,
// multi-node consolidation, single-node consolidation; drift first before v1.5). A
// method with a command waits its 15 s validation inside the pass; if the command still holds it
// starts and the loop runs again at once, else the next method is asked. Drift's commands start
// without a wait. A pass in which no method acted polls again 10 s later.
class DisruptionController final : private EventHandler {
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
    // The loop's phase: the first pass at poll_offset (at kDisruptionPollPeriod when 0).
    SimDuration poll_offset{0};
  };
  explicit DisruptionController(Inputs in);
  void start();

 private:
  // tag 0: a pass; i + 1: the validation wait of method i is over.
  void on_event(SimTime now, std::uint64_t tag) override;
  void run(SimTime now, std::size_t first_method);
  void rerun(SimTime now);
  void schedule(SimDuration after, std::uint64_t tag);

  static constexpr int kMaxRerunsPerInstant = 10'000;

  Inputs in_;
  DisruptionCommand pending_;  // waiting out its validation
  SimTime last_rerun_{};
  int reruns_ = 0;
  CandidatePass candidate_pass_;  // started by every pass (run)
  std::vector<std::unique_ptr<DisruptionMethod>> methods_;
  OrchestrationQueue queue_;
};

}  // namespace fleetsim
