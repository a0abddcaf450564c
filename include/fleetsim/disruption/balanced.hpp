// consolidationPolicy: Balanced (Karpenter v1.14, core:pkg/controllers/disruption/balanced.go).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/disruption/candidate.hpp"

namespace fleetsim {

// BalancedK: a move passes when its share of the pool's savings is at least 1/k of its share of
// the pool's disruption.
inline constexpr int kBalancedK = 2;

// Per NodePool: what its nodes cost ($/h) and what it would cost to disrupt them all.
struct PoolTotals {
  double cost = 0.0;
  double disruption = 0.0;
};

// Per pool index: the live nodes' prices, and Σ over initialized nodes of 1 + the positive
// eviction costs of their reschedulable pods (computeNodePoolTotals).
std::vector<PoolTotals> pool_totals(const Cluster& cluster, const CloudProvider& cloud,
                                    std::size_t pool_count);

// ScoreMove(...).Approved(): (savings ÷ pool cost) ÷ (disruption ÷ pool disruption) ≥ 1/k.
// A pool without cost or disruption, or a move without savings, scores 0; one without
// disruption scores +∞.
bool balanced_approves(double savings, double disruption, const PoolTotals& totals);

// EvaluateBalancedMove: every Balanced pool among the candidates approves its share of the
// savings (split by the candidates' prices when they span pools). Other policies always approve.
bool balanced_approves_command(std::span<const Candidate> candidates, double savings,
                               const std::vector<NodePool>& pools,
                               const std::vector<PoolTotals>& totals);

}  // namespace fleetsim
