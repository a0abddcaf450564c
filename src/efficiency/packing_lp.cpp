#include "fleetsim/efficiency/packing_lp.hpp"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

constexpr double kRoundingMargin = 1e-12;

// One class alone: each node of kind j holds at most min_r room_jr / request_r of its pods, so
// a pod costs at least price_j × max_r request_r / room_jr on it; the cheapest kind's figure ×
// the count is the LP's optimum (all pods on fractional nodes of that kind attain it).
double one_class(std::span<const PackingNodeKind> kinds, const PackingClass& c, double count) {
  double per_pod = std::numeric_limits<double>::infinity();
  for (std::uint32_t j : c.kinds) {
    double share = 0.0;
    bool fits = true;
    for (std::size_t r = 0; r < resource::kMaxResources; ++r) {
      if (c.request[r] <= 0) continue;
      if (kinds[j].room[r] < c.request[r]) {
        fits = false;
      } else {
        share = std::max(share, c.request[r] / kinds[j].room[r]);
      }
    }
    if (fits) per_pod = std::min(per_pod, kinds[j].usd_per_hour * share);
  }
  return std::isfinite(per_pod) ? count * per_pod : 0.0;
}

std::uint32_t root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Groups of the classes with demand that share kinds, each as class indices in order; the LP
// is the sum of its groups' LPs (they share no variable or constraint).
std::vector<std::vector<std::uint32_t>> groups(std::size_t kind_count,
                                               std::span<const PackingClass> classes,
                                               std::span<const double> counts) {
  std::vector<std::uint32_t> parent(classes.size());
  for (std::uint32_t k = 0; k < classes.size(); ++k) parent[k] = k;
  std::vector<std::int64_t> owner(kind_count, -1);  // a class with demand using the kind
  for (std::uint32_t k = 0; k < classes.size(); ++k) {
    if (counts[k] <= 0) continue;
    for (std::uint32_t j : classes[k].kinds) {
      FLEETSIM_ASSERT(j < kind_count);
      if (owner[j] < 0) {
        owner[j] = k;
      } else {
        parent[root(parent, static_cast<std::uint32_t>(owner[j]))] = root(parent, k);
      }
    }
  }
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_root;
  for (std::uint32_t k = 0; k < classes.size(); ++k)
    if (counts[k] > 0) by_root[root(parent, k)].push_back(k);
  std::vector<std::vector<std::uint32_t>> out;
  for (auto& [r, members] : by_root) out.push_back(std::move(members));
  return out;
}

}  // namespace

PackingLp::PackingLp(std::span<const PackingNodeKind> kinds,
                     std::span<const PackingClass> classes) {
  // Resources some pod requests: only they constrain; each is scaled by its largest room so
  // that CLP sees numbers near 1 (bytes and millicores otherwise differ by 10^7).
  for (std::size_t r = 0; r < resource::kMaxResources; ++r) {
    bool requested = false;
    for (const PackingClass& c : classes) requested |= c.request[r] > 0;
    if (!requested) continue;
    for (const PackingNodeKind& k : kinds) scale_[r] = std::max(scale_[r], k.room[r]);
    if (scale_[r] <= 0) scale_[r] = 1.0;  // nobody can hold it: f stays 0 on every kind
    used_.push_back(r);
  }

  // Drop each kind another one dominates: no dearer, at least its room of every requested
  // resource, and allowed to every class the first is. Moving a solution's nodes of the
  // dominated kind to the other keeps it feasible at no higher cost, so the optimum stays; the
  // LP shrinks from hundreds of types to the few on the price/room frontier. Kinds are taken
  // cheapest first, so a dominator is always kept before what it dominates.
  std::vector<std::vector<std::uint32_t>> members(kinds.size());  // sorted class indices
  for (std::uint32_t c = 0; c < classes.size(); ++c)
    for (std::uint32_t j : classes[c].kinds) members[j].push_back(c);
  std::vector<std::uint32_t> order;
  for (std::uint32_t j = 0; j < kinds.size(); ++j)
    if (!members[j].empty()) order.push_back(j);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (kinds[a].usd_per_hour != kinds[b].usd_per_hour)
      return kinds[a].usd_per_hour < kinds[b].usd_per_hour;
    return a < b;
  });
  std::vector<std::uint32_t> kept;  // original indices, LP order
  std::vector<std::int32_t> lp_index(kinds.size(), -1);
  for (std::uint32_t j : order) {
    const bool dominated = std::any_of(kept.begin(), kept.end(), [&](std::uint32_t d) {
      for (std::size_t r : used_)
        if (kinds[d].room[r] < kinds[j].room[r]) return false;
      return std::includes(members[d].begin(), members[d].end(), members[j].begin(),
                           members[j].end());
    });
    if (dominated) continue;
    lp_index[j] = static_cast<std::int32_t>(kinds_.size());
    kept.push_back(j);
    kinds_.push_back(kinds[j]);
  }
  for (const PackingClass& c : classes) {
    PackingClass kept{.request = c.request};
    for (std::uint32_t j : c.kinds) {
      FLEETSIM_ASSERT(j < kinds.size());
      if (lp_index[j] >= 0) kept.kinds.push_back(static_cast<std::uint32_t>(lp_index[j]));
    }
    classes_.push_back(std::move(kept));
  }

  // Each kept kind's capacity rows, but for a resource r whose row another resource s's row
  // implies: both rooms positive and, for every class allowed on the kind, request_r / room_r
  // ≤ request_s / room_s (then Σ_k request_kr f_kj ≤ room_r / room_s Σ_k request_ks f_kj ≤
  // room_r y_j), strictly for one class or else s first (so that of equal rows one stays, and
  // each row left out is implied by one kept). The rows left out change neither the LP's
  // optimum (its feasible points are the same) nor the certificate: the dual point of the LP
  // without them, with σ = 0 on them, meets the whole LP's dual constraints, which are the
  // same sums. Leaving rows out only relaxes the LP, so the bound holds even where the shares'
  // rounding lets a row go that binds by an ulp. A resource no class on the kind requests has
  // no entry in its row: σ = 0 there.
  // A GPU kind keeps about one row instead of one per resource some class requests, and CLP's
  // solves shrink with it.
  std::vector<std::vector<std::uint32_t>> on(kinds_.size());  // classes allowed, by kind
  for (std::uint32_t k = 0; k < classes_.size(); ++k)
    for (std::uint32_t j : classes_[k].kinds) on[j].push_back(k);
  const auto share = [&](std::uint32_t k, std::size_t j, std::size_t r) {
    return classes_[k].request[r] / kinds_[j].room[r];
  };
  for (std::size_t j = 0; j < kinds_.size(); ++j) {
    row_begin_.push_back(static_cast<std::uint32_t>(rows_.size()));
    for (std::size_t r : used_) {
      bool requested = false;
      for (std::uint32_t k : on[j]) requested |= classes_[k].request[r] > 0;
      if (!requested) continue;
      const bool implied =
          kinds_[j].room[r] > 0 && std::any_of(used_.begin(), used_.end(), [&](std::size_t s) {
            if (s == r || kinds_[j].room[s] <= 0) return false;
            bool strictly = false;
            for (std::uint32_t k : on[j]) {
              if (share(k, j, r) > share(k, j, s)) return false;
              strictly |= share(k, j, r) < share(k, j, s);
            }
            return strictly || s < r;
          });
      if (!implied) rows_.push_back(r);
    }
  }
  row_begin_.push_back(static_cast<std::uint32_t>(rows_.size()));
}

PackingLp::~PackingLp() = default;

double PackingLp::solve(std::span<const double> counts) {
  FLEETSIM_ASSERT(counts.size() == classes_.size());
  const auto nk = kinds_.size();
  const auto nc = classes_.size();
  // Rows: one per class, then the kinds' capacity rows (rows_). Columns: y_j, then f_kj.
  const auto room = [&](std::size_t j, std::size_t row) {
    return kinds_[j].room[rows_[row]] / scale_[rows_[row]];
  };
  const auto request = [&](std::size_t k, std::size_t row) {
    return classes_[k].request[rows_[row]] / scale_[rows_[row]];
  };
  const std::vector<std::vector<std::uint32_t>> parts = groups(nk, classes_, counts);
  if (parts.empty()) return 0.0;
  const bool any_shared =
      std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.size() > 1; });
  if (!any_shared) {
    double bound = 0.0;
    for (const auto& p : parts) bound += one_class(kinds_, classes_[p[0]], counts[p[0]]);
    return bound * (1.0 - kRoundingMargin);
  }

  if (!model_) {
    std::vector<CoinBigIndex> start{0};
    std::vector<int> index;
    std::vector<double> value, lower, upper, cost;
    for (std::size_t j = 0; j < nk; ++j) {
      for (std::size_t row = row_begin_[j]; row < row_begin_[j + 1]; ++row) {
        index.push_back(static_cast<int>(nc + row));
        value.push_back(room(j, row));
      }
      start.push_back(static_cast<CoinBigIndex>(index.size()));
      lower.push_back(0.0);
      upper.push_back(COIN_DBL_MAX);
      cost.push_back(kinds_[j].usd_per_hour);
    }
    for (std::size_t k = 0; k < nc; ++k) {
      for (std::uint32_t j : classes_[k].kinds) {
        index.push_back(static_cast<int>(k));
        value.push_back(1.0);
        for (std::size_t row = row_begin_[j]; row < row_begin_[j + 1]; ++row) {
          const double q = request(k, row);
          if (q <= 0) continue;
          index.push_back(static_cast<int>(nc + row));
          value.push_back(-q);
        }
        start.push_back(static_cast<CoinBigIndex>(index.size()));
        lower.push_back(0.0);
        upper.push_back(COIN_DBL_MAX);
        cost.push_back(0.0);
      }
    }
    const int rows = static_cast<int>(nc + rows_.size());
    std::vector<double> row_lower(static_cast<std::size_t>(rows), 0.0);
    std::vector<double> row_upper(static_cast<std::size_t>(rows), COIN_DBL_MAX);
    model_ = std::make_unique<ClpSimplex>();
    model_->setLogLevel(0);
    model_->loadProblem(static_cast<int>(cost.size()), rows, start.data(), index.data(),
                        value.data(), lower.data(), upper.data(), cost.data(), row_lower.data(),
                        row_upper.data());
  }
  for (std::size_t k = 0; k < nc; ++k)
    model_->setRowLower(static_cast<int>(k), std::max(0.0, counts[k]));
  // From the last solve's basis; 1 + 2 keep CLP's work areas and factorization between solves
  // (only the class rows' lower bounds change, which setRowLower writes through to them).
  model_->dual(0, 3);
  // Not optimal (a class no kind can hold: infeasible): no certificate, so no claim above 0.
  if (model_->status() != 0) {
    model_.reset();  // the next solve starts afresh
    return 0.0;
  }
  const double* dual = model_->dualRowSolution();

  // σ_jr ≥ 0 from the capacity rows' duals (in the scaled units), shrunk per kind until
  // Σ_r room_jr σ_jr ≤ price_j holds exactly: the y_j columns' dual constraints.
  std::vector<double> sigma(rows_.size(), 0.0);
  for (std::size_t j = 0; j < nk; ++j) {
    double charge = 0.0;
    for (std::size_t row = row_begin_[j]; row < row_begin_[j + 1]; ++row) {
      sigma[row] = std::max(0.0, dual[nc + row]);
      charge += room(j, row) * sigma[row];
    }
    const double price = kinds_[j].usd_per_hour;
    if (charge > price) {
      const double shrink = charge > 0 ? price / charge : 0.0;
      for (std::size_t row = row_begin_[j]; row < row_begin_[j + 1]; ++row) sigma[row] *= shrink;
    }
  }
  // π_k as large as the f_kj columns allow: the cheapest of k's kinds at prices σ.
  double bound = 0.0;
  for (std::size_t k = 0; k < nc; ++k) {
    if (counts[k] <= 0) continue;
    double pi = std::numeric_limits<double>::infinity();
    for (std::uint32_t j : classes_[k].kinds) {
      double price = 0.0;
      for (std::size_t row = row_begin_[j]; row < row_begin_[j + 1]; ++row)
        price += request(k, row) * sigma[row];
      pi = std::min(pi, price);
    }
    if (classes_[k].kinds.empty()) pi = 0.0;
    bound += counts[k] * std::max(0.0, pi);
  }
  // The sums above round; this margin keeps a rounding up of a few ulps from lifting the bound.
  return bound * (1.0 - kRoundingMargin);
}

double packing_usd_per_hour(std::span<const PackingNodeKind> kinds,
                            std::span<const PackingClass> classes) {
  std::vector<double> counts;
  for (const PackingClass& c : classes) counts.push_back(c.count);
  return PackingLp(kinds, classes).solve(counts);
}

}  // namespace fleetsim
