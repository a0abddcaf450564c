// Consolidation's candidates kept across disruption passes while nothing they read changes.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/disruption/candidate.hpp"

namespace fleetsim {

struct ConsolidationCandidateInputs {
  const Cluster& cluster;
  const NodeClaims& claims;
  const CloudProvider& cloud;
  const PodDisruptionBudgets& pdbs;
  const std::vector<NodePool>& pools;
  std::uint64_t pools_generation;  // moves whenever `pools` change
  KarpenterVersion version;
};

// Consolidation's candidates now (ShouldDisrupt: consolidateAfter not Never, policy not
// WhenEmpty, Consolidatable, and from v1.14 not empty), in the release's order, built afresh.
std::vector<Candidate> consolidation_candidates(const ConsolidationCandidateInputs& in,
                                                SimTime now);

// consolidation_candidates, with what does not move with time kept per cluster revision (nodes,
// pods, bindings, terminating, marks), PDB status revision and NodePool generation: which nodes
// may be candidates, their pods, costs and offerings. A disruption poll every 10 s mostly sees
// the same cluster. What moves with time or outside those revisions is read again every call:
// the nomination (nominated_until), a pod's do-not-disrupt duration, consolidateAfter, the
// share of expireAfter left, and the offering's price; the kept order is re-sorted only when a
// sort key (price, or the lifetime-scaled disruption cost) changed.
class CandidateCache {
 public:
  // Fills `out` with consolidation_candidates(in, now), reusing its elements' storage.
  void candidates(const ConsolidationCandidateInputs& in, SimTime now, std::vector<Candidate>& out);
  // How many times the time-independent part was rebuilt (for tests).
  std::uint64_t rebuilds() const { return rebuilds_; }

 private:
  struct Entry {
    Candidate candidate;     // price and disruption_cost as of the last call
    double base_cost = 0.0;  // Σ eviction costs, before the share of expireAfter left
    std::uint32_t offering = 0;
    std::uint32_t dnd_begin = 0, dnd_end = 0;  // its pods with a do-not-disrupt, in dnd_pods_
  };
  bool current(const ConsolidationCandidateInputs& in) const;
  void rebuild(const ConsolidationCandidateInputs& in);

  bool valid_ = false;
  bool sorted_ = false;
  std::uint64_t revision_ = 0;
  std::uint64_t pod_status_revision_ = 0;
  std::uint64_t pools_generation_ = 0;
  const std::vector<NodePool>* pools_ = nullptr;
  bool by_ratio_ = false;
  std::vector<Entry> entries_;  // in candidate order once sorted_
  std::vector<PodId> dnd_pods_;
  std::vector<PodId> scratch_;
  std::uint64_t rebuilds_ = 0;
};

}  // namespace fleetsim
