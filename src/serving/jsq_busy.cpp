#include "fleetsim/serving/jsq_busy.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim {

namespace {

// The table's share at row `row`, linear in the load between its columns.
double share_at(int row, double load) {
  const double x = load / jsq_table::kLoadStep;
  const int k = std::min(static_cast<int>(x), jsq_table::kLoadColumns - 2);
  const double f = x - k;
  const auto& r = jsq_table::kBusyShare[row];
  return r[k] + (r[k + 1] - r[k]) * f;
}

}  // namespace

double jsq_busy_share(double load, double replicas) {
  constexpr double kTableLoad = jsq_table::kLoadStep * (jsq_table::kLoadColumns - 1);
  if (!(load > 0) || load >= kTableLoad || replicas <= 1) return 1.0;
  const auto& rows = jsq_table::kReplicas;
  const auto above = std::upper_bound(rows.begin(), rows.end(), replicas);
  if (above == rows.end()) return share_at(jsq_table::kReplicaRows - 1, load);
  const int hi = static_cast<int>(above - rows.begin());
  const int lo = hi - 1;  // rows[0] is 1 < replicas
  const double f = (replicas - rows[lo]) / (rows[hi] - rows[lo]);
  return share_at(lo, load) + (share_at(hi, load) - share_at(lo, load)) * f;
}

double jsq_prompt_overlap(double replicas) { return replicas > 1 ? 1 / std::sqrt(replicas) : 1.0; }

double jsq_decode_overlap(double replicas) { return (1 + jsq_prompt_overlap(replicas)) / 2; }

}  // namespace fleetsim
