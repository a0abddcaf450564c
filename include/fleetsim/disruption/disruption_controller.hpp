// Karpenter's disruption controller: expiration and emptiness, with budgets and validation.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// Disruption poll period when no method acted (core:pkg/controllers/disruption/controller.go).
inline constexpr SimDuration kDisruptionPollPeriod = seconds(10);
// commandValidationDelay: a command is re-checked this long after it was computed.
inline constexpr SimDuration kCommandValidationDelay = seconds(15);
// Calendar time of simulated t = 0 unless a scenario says otherwise: Monday 2024-01-01T00:00Z.
inline constexpr std::int64_t kDefaultStartUnixSeconds = 1'704'067'200;

// Every 10 s: NodeClaims past expireAfter are deleted at once (no budgets, as in Karpenter v1);
// then Emptiness collects every empty node whose consolidateAfter has passed since its last pod
// event, most expensive first (v1.14's savings ratio for an empty node is its price), up to each
// pool's budget, waits 15 s, re-checks and deletes those still empty.
// Drift and consolidation of underutilized nodes are not modelled yet.
class DisruptionController : private EventHandler {
 public:
  DisruptionController(Simulation& sim, const Cluster& cluster, NodeTermination& termination, const std::vector<NodePool>& pools,
                       std::int64_t start_unix_s);
  void start();

 private:
  enum class Step : std::uint64_t { Poll = 1, Validate = 2 };
  void on_event(SimTime now, std::uint64_t tag) override;
  void expire(SimTime now);
  std::vector<NodeId> empty_candidates(SimTime now) const;
  bool is_empty_candidate(const Node& n, SimTime now) const;
  void execute(SimTime now);

  Simulation& sim_;
  const Cluster& cluster_;
  NodeTermination& termination_;
  const std::vector<NodePool>& pools_;
  std::int64_t start_unix_s_;
  std::vector<NodeId> command_;  // empty nodes awaiting validation
};

}  // namespace fleetsim
