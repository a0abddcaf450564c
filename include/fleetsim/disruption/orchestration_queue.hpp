// Karpenter's orchestration queue: a disruption command waits, is validated, then executed
// (core:pkg/controllers/disruption/queue.go, validation.go).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fleetsim/disruption/disruption_method.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/k8s/karpenter_version.hpp"
#include "fleetsim/kube/node_termination.hpp"
#include "fleetsim/provisioning/karpenter/nodeclaim_launcher.hpp"

namespace fleetsim {

// commandValidationDelay: a command is re-checked this long after it was computed.
inline constexpr SimDuration kCommandValidationDelay = seconds(15);
// How long a command waits for its replacement to initialize before it is abandoned
// (minRetryDuration), and how often it looks (queueBaseDelay: a fixed 1 s since Karpenter v1.6;
// before, 1 s doubling to queueMaxDelay).
inline constexpr SimDuration kReplacementTimeout = minutes(10);
inline constexpr SimDuration kQueueBaseDelay = seconds(1);
inline constexpr SimDuration kQueueMaxDelay = seconds(10);

// The controller hands it commands to start, or, after their validation wait, to validate and
// start. A started command emits disruption_decision; a delete deletes its nodes at once; a
// replace taints its nodes karpenter.sh/disrupted:NoSchedule, launches the replacements and
// deletes the nodes once all are initialized. A replacement that fails to launch, goes away or
// is not initialized within 10 minutes gives the nodes back. Several replaces may wait at once.
class OrchestrationQueue : private EventHandler {
 public:
  struct Inputs {
    Simulation& sim;
    Cluster& cluster;
    ClusterBus& bus;
    NodeTermination& termination;
    NodeClaimLauncher& launcher;
    const std::vector<NodePool>& pools;
    std::int64_t start_unix_s;
    KarpenterVersion version;
  };
  explicit OrchestrationQueue(Inputs in);

  void start(DisruptionMethod& method, DisruptionCommand command, SimTime now);
  // validation.go: the command re-checked against the cluster now; started if it holds.
  bool validate_and_start(DisruptionMethod& method, DisruptionCommand command, SimTime now);

 private:
  struct Running {
    DisruptionMethod* method = nullptr;
    DisruptionCommand command;
    std::vector<NodeId> replacements;
    SimTime started{};
    SimDuration poll = kQueueBaseDelay;  // until the next look at the replacements
  };

  void on_event(SimTime now, std::uint64_t tag) override;  // tag: a running replace's id
  void check_replacement(std::uint32_t id, SimTime now);
  void poll_later(std::uint32_t id, Running& r);
  void delete_nodes(const Running& r);
  void give_back(const Running& r);

  Inputs in_;
  std::map<std::uint32_t, Running> running_;  // replaces waiting for their replacement, by id
  std::uint32_t next_id_ = 0;
};

}  // namespace fleetsim
