// What Karpenter's two consolidation methods share: candidates, the scheduling simulation, the
// price checks and validation (core:pkg/controllers/disruption/consolidation.go, helpers.go
// SimulateScheduling, validation.go).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "fleetsim/disruption/balanced.hpp"
#include "fleetsim/disruption/candidate.hpp"
#include "fleetsim/disruption/candidate_pass.hpp"
#include "fleetsim/disruption/disruption_method.hpp"
#include "fleetsim/disruption/scheduling_simulation.hpp"

namespace fleetsim {

// MinInstanceTypesForSpotToSpotConsolidation: single-node spot-to-spot needs this many cheaper
// types, and launches with the cheapest this many.
inline constexpr std::size_t kSpotToSpotMinTypes = 15;
struct ConsolidationSettings {
  bool spot_to_spot = false;  // the SpotToSpotConsolidation feature gate
  KarpenterVersion version;
};

class Consolidation : public DisruptionMethod {
 public:
  struct Inputs {
    const Cluster& cluster;
    const KarpenterProvisioner& provisioner;
    CloudProvider& cloud;
    const PodDisruptionBudgets& pdbs;
    ConsolidationSettings settings;
    // The controller's, shared by both consolidation methods; null: each builds its own.
    CandidatePass* pass = nullptr;
  };
  explicit Consolidation(Inputs in);
  ~Consolidation() override;

  DisruptionReason budget_reason() const override { return DisruptionReason::Underutilized; }
  NodeDeletionReason termination_reason() const override {
    return NodeDeletionReason::Underutilized;
  }
  // The candidates must all still be candidates within budget, and a new simulation must give
  // the same shape: still a delete, or one replacement whose types include the command's.
  DisruptionCommand validate(DisruptionCommand command, SimTime now,
                             BudgetTracker& budgets) override;

 protected:
  // Consolidation candidates now (ShouldDisrupt: consolidateAfter not Never, policy not
  // WhenEmpty, Consolidatable, and from v1.14 not empty), in the release's order; sets the
  // Balanced pool totals. Built once a pass for both methods (CandidatePass): kept until the
  // next call or pass; what does not move with time is kept across passes (CandidateCache).
  const std::vector<Candidate>& candidates(SimTime now);
  // Before v1.14 empty nodes are candidates too, passed over after the budget check: emptiness
  // is left to delete them (multi- and single-node consolidation skip them).
  bool passes_over(const Candidate& c) const {
    return c.empty && !settings_.version.savings_ratio_order();
  }
  // computeConsolidation on the pass's snapshot: a delete, a replace, or nullopt.
  std::optional<DisruptionCommand> compute_consolidation(std::span<const Candidate> candidates,
                                                         SimTime now);
  // Whether Balanced pools approve the command (always, for other policies).
  bool approves(std::span<const Candidate> candidates, const DisruptionCommand& command) const;
  // Whether deleting the candidate outright could pass Balanced (CanPassThreshold).
  bool can_pass_threshold(const Candidate& candidate) const;
  // Karpenter's IsConsolidated: nothing changed since a pass found nothing.
  bool is_consolidated(SimTime now) const;
  // IsConsolidated known without reading the state: upstream reads it only after finding
  // candidates, and a read past the 5 minutes resets it, so only a state within them can be
  // compared before the candidates are built. A method consolidated so skips building them.
  bool known_consolidated(SimTime now) const;
  void mark_consolidated(SimTime now);
  // Keeps the claim's types whose worst-case launch price is below `max_price`; false when
  // none is left or minValues no longer hold (RemoveInstanceTypeOptionsByPriceAndMinValues).
  bool keep_cheaper(NewNodeClaim& claim, double max_price) const;

  const Cluster& cluster_;
  const KarpenterProvisioner& provisioner_;
  CloudProvider& cloud_;
  const PodDisruptionBudgets& pdbs_;
  ConsolidationSettings settings_;

 private:
  std::optional<NewNodeClaim> price_replacement(std::span<const Candidate> candidates,
                                                NewNodeClaim claim) const;
  // Prices of the offerings `pool` may launch (its EC2NodeClass's reservations only), as its
  // NodeOverlays change them.
  double worst_launch_price(std::uint32_t pool, std::uint32_t type, const Requirements& r) const;
  double cheapest_price(std::uint32_t pool, std::uint32_t type, const Requirements& r) const;
  // v1.14 (#3006): the simulation keeps pods off nodes still inside their consolidateAfter.
  bool keeps_off_fresh_nodes() const {
    return settings_.version.consolidate_after_on_destinations();
  }

  // Sets totals_ when a pool is Balanced (only then are they read).
  void update_totals();
  ConsolidationCandidateInputs candidate_inputs() const;

  SchedulingSimulation simulation_;
  CandidatePass* pass_;
  std::vector<Candidate> own_;  // the candidates, without a pass to keep them
  CandidateCache own_cache_;    // and what they are built from across calls
  std::vector<PoolTotals> totals_;
  // IsConsolidated: the cluster's consolidation state when a pass last found nothing. A node that
  // turns Consolidatable later does not reopen consolidation (upstream waits for a change or
  // the state's 5-minute reset).
  std::optional<SimTime> consolidated_state_;
};

}  // namespace fleetsim
