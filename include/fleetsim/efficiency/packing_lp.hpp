// The packing bound of one moment: the LP relaxation of covering a demand with nodes, solved
// with COIN-OR CLP and certified by a dual solution (so that rounding never lifts it).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fleetsim/core/resources.hpp"

class ClpSimplex;

namespace fleetsim {

// What one node of a kind (an instance type and capacity type) holds and costs.
struct PackingNodeKind {
  double usd_per_hour = 0.0;
  std::array<double, resource::kMaxResources> room{};  // what pods may request of one node
};

// Identical pods that may use the same node kinds.
struct PackingClass {
  double count = 0.0;
  std::array<double, resource::kMaxResources> request{};
  std::vector<std::uint32_t> kinds;  // indices into the kinds given beside, no repeats
};

// A lower bound on the hourly cost of any set of nodes of the given kinds that holds `count`
// pods of each class, each on a node of one of its kinds; 0 when there is no demand.
//
// The LP: y_j ≥ 0 nodes of kind j, f_kj ≥ 0 pods of class k on kind j (j among k's kinds):
//   minimise Σ_j price_j y_j
//   subject to Σ_j f_kj ≥ count_k                    (every pod placed)
//              room_jr y_j − Σ_k request_kr f_kj ≥ 0 (each resource of the kind's nodes)
// Any real placement is a feasible point (y_j the nodes of kind j, f_kj the pods of k on them,
// whose requests sum to at most the nodes' room), so the LP's optimum is at most its cost.
// The value returned is not CLP's objective but Σ_k count_k π_k for a dual point repaired to be
// exactly feasible (π ≥ 0, σ ≥ 0, Σ_r room_jr σ_jr ≤ price_j, π_k ≤ Σ_r request_kr σ_jr):
// by weak duality any such point bounds the LP's optimum from below, whatever CLP's
// tolerances did. Kinds another kind dominates (no dearer, no less room, every class allowed) are
// left out of the LP; the dual point extends to them with their dominator's σ, which meets
// their constraints too (less room, a price no lower, and each of their classes' π_k at most
// the dominator's price at σ), so it is a dual point of the whole LP.
// A kind's capacity row for a resource is left out when another resource's row implies it for
// every class allowed on the kind (its share of the node is never larger): the feasible points
// stay, and the dual point with σ = 0 on the rows left out is still one of the whole LP.
// Classes that share no kind are solved apart (the LP separates); a class alone in closed form.
double packing_usd_per_hour(std::span<const PackingNodeKind> kinds,
                            std::span<const PackingClass> classes);

// The same LP kept between solves whose kinds and classes are the same and only the counts
// change: CLP starts each solve from the last one's basis (a run's cells differ by a few pods).
class PackingLp {
 public:
  // The classes' counts are not read here.
  PackingLp(std::span<const PackingNodeKind> kinds, std::span<const PackingClass> classes);
  ~PackingLp();
  PackingLp(const PackingLp&) = delete;
  PackingLp& operator=(const PackingLp&) = delete;

  // packing_usd_per_hour for these counts, one per class in the constructor's order.
  double solve(std::span<const double> counts);

 private:
  std::vector<PackingNodeKind> kinds_;  // the kept ones, in LP order
  std::vector<PackingClass> classes_;   // kinds renumbered to LP order
  std::vector<std::size_t> used_;       // resources some class requests
  std::array<double, resource::kMaxResources> scale_{};
  std::vector<std::size_t> rows_;         // the capacity rows' resources, kind after kind
  std::vector<std::uint32_t> row_begin_;  // per kind its first capacity row, then the end
  std::unique_ptr<ClpSimplex> model_;
};

}  // namespace fleetsim
