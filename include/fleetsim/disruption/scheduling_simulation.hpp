// Karpenter's disruption simulation (core:pkg/controllers/disruption/helpers.go
// SimulateScheduling): remove candidate nodes, then schedule their pods, the pending pods (with
// the CapacityBuffers' virtual pods) and the pods of deleting nodes with the provisioner's own
// solver.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "fleetsim/disruption/candidate.hpp"
#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"
#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"

namespace fleetsim {

// The cheapest offering price now of a type within a claim's requirements (zones, capacity
// types), among offerings the provider can launch for `pool` (a reservation only where its
// EC2NodeClass selects it), as the pool's NodeOverlays price them; +∞ when none.
double cheapest_offering_price(const SchedulingContext& context, CloudProvider& cloud,
                               std::uint32_t pool, std::uint32_t type, const Requirements& r);
// Whether `pool` may launch global offering `g` (PoolTemplate::offering_allowed).
inline bool pool_offers(const SchedulingContext& context, std::uint32_t pool, std::uint32_t g) {
  const std::vector<std::uint8_t>& allowed = context.pools()[pool].offering_allowed;
  return allowed.empty() || allowed[g] != 0;
}

// The cluster's snapshot is taken once per cluster revision (and NodePool or CapacityBuffer
// generation) and reused by every simulation until then; a simulation only changes which nodes
// are removed and which pods move. A simulation's answer is kept too: a disruption poll every
// 10 s asks the same of an unchanged cluster (multi-node consolidation recomputes while a budget
// holds candidates back, as upstream), and gets it again while the snapshot, the nodes inside
// consolidateAfter and the cloud's offerings and prices stay as they were.
class SchedulingSimulation {
 public:
  SchedulingSimulation(const Cluster& cluster, const KarpenterProvisioner& provisioner,
                       CloudProvider& cloud);
  ~SchedulingSimulation();

  // The NewNodeClaims the candidates' pods need, or nullopt when a pod that is not pending finds
  // no place or a candidate's pod would wait for a node that is not initialized. `consolidation`
  // applies IsConsolidationSimulation: a candidate's pod does not go to a node still inside its
  // pool's consolidateAfter.
  // The answer is kept here until the next run: a caller copies what it changes.
  const std::optional<std::vector<NewNodeClaim>>& run(std::span<const Candidate> candidates,
                                                      bool consolidation, SimTime now);
  // The solver's view the last run used.
  const SchedulingContext& context() const { return *context_; }
  // The existing nodes the last run that succeeded placed pods on, by id.
  const std::vector<NodeId>& destinations() const { return destinations_; }

 private:
  void take_snapshot_at(SimTime now);
  // Forgets the kept answers unless the cloud's offerings and prices are those they were
  // computed with.
  void check_offerings(std::span<const std::uint8_t> usable, std::span<const double> prices,
                       std::uint64_t revision);
  struct Answer {
    std::vector<NodeId> nodes;             // the candidates, in order
    std::vector<std::vector<PodId>> pods;  // theirs
    bool consolidation = false;
    std::optional<std::vector<NewNodeClaim>> claims;
    std::vector<NodeId> destinations;
  };
  const Answer* kept(std::span<const Candidate> candidates, bool consolidation) const;
  // The most answers kept at once: a pass asks fewer (a binary search over 100 candidates, a
  // try per candidate).
  static constexpr std::size_t kKeptAnswers = 256;
  void mark_consolidate_after(SimTime now);
  std::optional<std::vector<NewNodeClaim>> simulate(std::span<const Candidate> candidates,
                                                    bool consolidation,
                                                    std::span<const std::uint8_t> usable,
                                                    std::span<const double> prices);

  const Cluster& cluster_;
  const KarpenterProvisioner& provisioner_;
  CloudProvider& cloud_;
  const SchedulingContext* context_ = nullptr;
  std::unique_ptr<Scheduler> scheduler_;
  // Pending pods, then pods of deleting nodes, then (per run) the candidates' pods.
  ClusterSnapshot snapshot_;
  std::size_t pending_count_ = 0;
  std::size_t base_pod_count_ = 0;
  bool dra_in_base_ = false;       // a deleting node's pod has ResourceClaims: no simulation passes
  bool base_reads_bound_ = false;  // the snapshot's pods or bound pods make solves read bound ones
  std::vector<std::uint32_t> slot_of_node_;  // NodeId → snapshot node index
  std::vector<std::uint8_t> removed_;
  std::vector<std::uint32_t> node_order_;  // the solver's order of the snapshot's nodes
  std::vector<std::int8_t> node_zones_;    // and their zones
  std::vector<std::uint8_t> under_consolidate_after_;
  std::vector<NodeId> destinations_;
  std::uint64_t revision_ = UINT64_MAX;
  std::uint64_t buffers_generation_ = 0;
  std::uint64_t pools_generation_ = 0;
  SimTime time_{};
  std::vector<Answer> answers_;
  std::vector<std::uint8_t> answers_usable_;  // what answers_ were computed with
  std::vector<double> answers_prices_;
  std::uint64_t answers_revision_ = 0;  // the cloud's offerings_revision() then
};

}  // namespace fleetsim
