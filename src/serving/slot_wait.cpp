#include "fleetsim/serving/slot_wait.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim {

namespace {

constexpr double kMaxUtilization = 0.98;
// Above this β of Halfin–Whitt's, fewer than 1 in 10,000 requests wait, and its estimate is
// taken; below it Erlang C is computed exactly.
constexpr double kNegligibleBeta = 4;

// Erlang C: the M/M/c probability of waiting, from Erlang B's stable recursion.
double erlang_c(double offered, int slots) {
  const double beta = (slots - offered) / std::sqrt(offered);
  if (beta > kNegligibleBeta) {
    const double cdf = 0.5 * std::erfc(-beta / std::sqrt(2.0));
    const double pdf = std::exp(-beta * beta / 2) / std::sqrt(2 * 3.141592653589793);
    return 1 / (1 + beta * cdf / pdf);
  }
  double b = 1;
  for (int k = 1; k <= slots; ++k) b = offered * b / (k + offered * b);
  const double rho = offered / slots;
  return b / (1 - rho * (1 - b));
}

}  // namespace

double SlotWait::quantile(double u) const {
  if (p_wait <= 0 || u < 1 - p_wait) return 0;
  return mean_wait_s * std::log(p_wait / std::max(1 - u, 1e-12));
}

SlotWait slot_wait(double offered, double slots, double service_cv2, double holding_s) {
  const int c = static_cast<int>(std::floor(slots));
  if (c < 1 || offered <= 0 || holding_s <= 0) return {};
  const double a = std::min(offered, kMaxUtilization * c);
  const double factor = (1 + service_cv2) / 2;
  SlotWait w;
  w.p_wait = std::clamp(erlang_c(a, c), 0.0, 1.0);
  w.mean_wait_s = factor * holding_s / (c - a);
  w.mean_waiting = factor * w.p_wait * a / (c - a);
  return w;
}

}  // namespace fleetsim
