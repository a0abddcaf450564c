#include "fleetsim/efficiency/packing_lp.hpp"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <limits>
#include <map>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

using ResourceArray = std::array<double, resource::kMaxResources>;

constexpr double kRoundingMargin = 1e-12;

}  // namespace

double packing_usd_per_hour(std::span<const PackingNodeKind> kinds,
                            std::span<const PackingClass> classes) {
  // Resources some pod requests: only they constrain; each is scaled by its largest room so
  // that CLP sees numbers near 1 (bytes and millicores otherwise differ by 10^7).
  ResourceArray scale{};
  std::vector<std::size_t> used;
  for (std::size_t r = 0; r < resource::kMaxResources; ++r) {
    bool requested = false;
    for (const PackingClass& c : classes) requested |= c.count > 0 && c.request[r] > 0;
    if (!requested) continue;
    for (const PackingNodeKind& k : kinds) scale[r] = std::max(scale[r], k.room[r]);
    if (scale[r] <= 0) scale[r] = 1.0;  // nobody can hold it: f stays 0 on every kind
    used.push_back(r);
  }
  const auto nr = used.size();

  // Drop each kind another one dominates: no dearer, at least its room of every requested
  // resource, and allowed to the same classes. Moving a solution's nodes of the dominated kind
  // to the other keeps it feasible at no higher cost, so the optimum stays; the LP shrinks
  // from hundreds of types to the few on the price/room frontier.
  std::vector<std::vector<std::uint32_t>> members(kinds.size());
  for (std::uint32_t c = 0; c < classes.size(); ++c)
    if (classes[c].count > 0)
      for (std::uint32_t j : classes[c].kinds) members[j].push_back(c);
  std::map<std::vector<std::uint32_t>, std::vector<std::uint32_t>> by_members;
  for (std::uint32_t j = 0; j < kinds.size(); ++j)
    if (!members[j].empty()) by_members[members[j]].push_back(j);
  std::vector<std::uint32_t> kept;  // original kind indices, LP order
  for (auto& [who, group] : by_members) {
    std::sort(group.begin(), group.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (kinds[a].usd_per_hour != kinds[b].usd_per_hour)
        return kinds[a].usd_per_hour < kinds[b].usd_per_hour;
      return a < b;
    });
    const std::size_t first = kept.size();
    for (std::uint32_t j : group) {
      const bool dominated = std::any_of(kept.begin() + static_cast<std::ptrdiff_t>(first),
                                         kept.end(), [&](std::uint32_t d) {
                                           for (std::size_t r : used)
                                             if (kinds[d].room[r] < kinds[j].room[r]) return false;
                                           return true;
                                         });
      if (!dominated) kept.push_back(j);
    }
  }
  std::vector<std::int32_t> lp_index(kinds.size(), -1);
  for (std::size_t i = 0; i < kept.size(); ++i) lp_index[kept[i]] = static_cast<std::int32_t>(i);
  const auto nk = kept.size();

  // Rows: one per class with demand, then one per (kind, used resource). Columns: y_j, then f_kj.
  std::vector<std::size_t> demand_row(classes.size(), SIZE_MAX);
  int rows = 0;
  for (std::size_t k = 0; k < classes.size(); ++k)
    if (classes[k].count > 0) demand_row[k] = static_cast<std::size_t>(rows++);
  if (rows == 0) return 0.0;
  const auto capacity_row = [&](std::size_t j, std::size_t ri) {
    return static_cast<int>(static_cast<std::size_t>(rows) + j * nr + ri);
  };
  const int total_rows = rows + static_cast<int>(nk * nr);

  std::vector<CoinBigIndex> start{0};
  std::vector<int> index;
  std::vector<double> value, lower, upper, cost;
  for (std::size_t j = 0; j < nk; ++j) {
    for (std::size_t ri = 0; ri < nr; ++ri) {
      index.push_back(capacity_row(j, ri));
      value.push_back(kinds[kept[j]].room[used[ri]] / scale[used[ri]]);
    }
    start.push_back(static_cast<CoinBigIndex>(index.size()));
    lower.push_back(0.0);
    upper.push_back(COIN_DBL_MAX);
    cost.push_back(kinds[kept[j]].usd_per_hour);
  }
  // Each class's kinds that are kept, in LP indices.
  std::vector<std::vector<std::uint32_t>> lp_kinds(classes.size());
  for (std::size_t k = 0; k < classes.size(); ++k)
    for (std::uint32_t j : classes[k].kinds) {
      FLEETSIM_ASSERT(j < kinds.size());
      if (lp_index[j] >= 0) lp_kinds[k].push_back(static_cast<std::uint32_t>(lp_index[j]));
    }
  for (std::size_t k = 0; k < classes.size(); ++k) {
    if (demand_row[k] == SIZE_MAX) continue;
    for (std::uint32_t j : lp_kinds[k]) {
      index.push_back(static_cast<int>(demand_row[k]));
      value.push_back(1.0);
      for (std::size_t ri = 0; ri < nr; ++ri) {
        const double q = classes[k].request[used[ri]];
        if (q <= 0) continue;
        index.push_back(capacity_row(j, ri));
        value.push_back(-q / scale[used[ri]]);
      }
      start.push_back(static_cast<CoinBigIndex>(index.size()));
      lower.push_back(0.0);
      upper.push_back(COIN_DBL_MAX);
      cost.push_back(0.0);
    }
  }
  std::vector<double> row_lower(static_cast<std::size_t>(total_rows), 0.0);
  std::vector<double> row_upper(static_cast<std::size_t>(total_rows), COIN_DBL_MAX);
  for (std::size_t k = 0; k < classes.size(); ++k)
    if (demand_row[k] != SIZE_MAX) row_lower[demand_row[k]] = classes[k].count;

  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(cost.size()), total_rows, start.data(), index.data(),
                    value.data(), lower.data(), upper.data(), cost.data(), row_lower.data(),
                    row_upper.data());
  model.dual();
  // Not optimal (a class no kind can hold: infeasible): no certificate, so no claim above 0.
  if (model.status() != 0) return 0.0;
  const double* dual = model.dualRowSolution();

  // σ_jr ≥ 0 from the capacity rows' duals (in the scaled units), shrunk per kind until
  // Σ_r room_jr σ_jr ≤ price_j holds exactly: the y_j columns' dual constraints.
  std::vector<double> sigma(nk * nr, 0.0);
  for (std::size_t j = 0; j < nk; ++j) {
    double charge = 0.0;
    for (std::size_t ri = 0; ri < nr; ++ri) {
      const double s = std::max(0.0, dual[capacity_row(j, ri)]);
      sigma[j * nr + ri] = s;
      charge += kinds[kept[j]].room[used[ri]] / scale[used[ri]] * s;
    }
    const double price = kinds[kept[j]].usd_per_hour;
    if (charge > price) {
      const double shrink = charge > 0 ? price / charge : 0.0;
      for (std::size_t ri = 0; ri < nr; ++ri) sigma[j * nr + ri] *= shrink;
    }
  }
  // π_k as large as the f_kj columns allow: the cheapest of k's kinds at prices σ.
  double bound = 0.0;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    if (demand_row[k] == SIZE_MAX) continue;
    double pi = std::numeric_limits<double>::infinity();
    for (std::uint32_t j : lp_kinds[k]) {
      double price = 0.0;
      for (std::size_t ri = 0; ri < nr; ++ri)
        price += classes[k].request[used[ri]] / scale[used[ri]] * sigma[j * nr + ri];
      pi = std::min(pi, price);
    }
    if (lp_kinds[k].empty()) pi = 0.0;
    bound += classes[k].count * std::max(0.0, pi);
  }
  // The sums above round; this margin keeps a rounding up of a few ulps from lifting the bound.
  return bound * (1.0 - kRoundingMargin);
}

}  // namespace fleetsim
