// The fewest-in-flight router's busy replicas (jsq_busy.hpp): the table's look-up, and the share
// against a simulation of the router over replicas that serve each request alone in an
// exponential time (M/M/∞ per replica), the case the table's chain models.
#include "fleetsim/serving/jsq_busy.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

namespace fleetsim {
namespace {

// E[min(N, R)] for N Poisson with mean a.
double expected_min(double a, int r) {
  double p = std::exp(-a), below = 0;
  for (int k = 0; k < r; ++k) {
    below += (r - k) * p;
    p *= a / (k + 1);
  }
  return r - below;
}

// The time-average of busy replicas: arrivals at rate a join the replica with the fewest requests
// (ties: the first), each request leaves at rate 1.
double simulate_router(double a, int r, double horizon, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> held(r, 0);
  int n = 0;
  double t = 0, busy_time = 0;
  while (t < horizon) {
    const double rate = a + n;
    const double dt = std::exponential_distribution<double>(rate)(rng);
    busy_time += dt * static_cast<double>(
                          std::count_if(held.begin(), held.end(), [](int k) { return k > 0; }));
    t += dt;
    if (std::uniform_real_distribution<double>(0, rate)(rng) < a) {
      ++*std::min_element(held.begin(), held.end());
      ++n;
      continue;
    }
    int k = std::uniform_int_distribution<int>(0, n - 1)(rng);
    for (int& h : held) {
      if (k < h) {
        --h;
        break;
      }
      k -= h;
    }
    --n;
  }
  return busy_time / t;
}

TEST_CASE("the router's busy replicas are the table's share of E min(N R)") {
  for (auto [r, load] : {std::pair{2, 0.6}, std::pair{4, 0.8}, std::pair{8, 1.0},
                         std::pair{12, 1.3}, std::pair{6, 1.0}}) {
    const double a = r * load;
    const double simulated = simulate_router(a, r, 40000, 7);
    const double fluid = expected_min(a, r) * jsq_busy_share(load, r);
    INFO(r << " replicas at " << load << " per replica: simulated " << simulated << ", fluid "
           << fluid << ", E[min(N R)] " << expected_min(a, r));
    CHECK(fluid == Approx(simulated).epsilon(0.01));
    // What the share corrects: E[min(N, R)] alone runs 2-5 % high here.
    CHECK(expected_min(a, r) > simulated * 1.015);
  }
}

TEST_CASE("jsq_busy_share reads its table and is 1 where no replica can idle beside a busy one") {
  using jsq_table::kBusyShare;
  CHECK(jsq_busy_share(1.0, 4) == kBusyShare[3][10]);  // row R = 4, column 1.0
  CHECK(jsq_busy_share(1.05, 4) == Approx((kBusyShare[3][10] + kBusyShare[3][11]) / 2));
  // Between rows R = 8 and 10, linear in R.
  CHECK(jsq_busy_share(1.0, 9) == Approx((kBusyShare[6][10] + kBusyShare[7][10]) / 2));
  CHECK(jsq_busy_share(1.0, 1) == 1.0);
  CHECK(jsq_busy_share(0.0, 8) == 1.0);
  CHECK(jsq_busy_share(4.0, 8) == 1.0);
  CHECK(jsq_busy_share(1.0, 500) == kBusyShare[jsq_table::kReplicaRows - 1][10]);
  CHECK(jsq_busy_share(1.0, 4) < 0.96);
}

// One replica takes every prompt as its arrivals come; behind the router a request's decodes see
// half as many fewer as its prefill does.
TEST_CASE("the router keeps prompts apart by the square root of its replicas") {
  CHECK(jsq_prompt_overlap(1) == 1.0);
  CHECK(jsq_prompt_overlap(4) == 0.5);
  CHECK(jsq_decode_overlap(1) == 1.0);
  CHECK(jsq_decode_overlap(4) == 0.75);
  CHECK(jsq_decode_overlap(16) == 0.625);
}

}  // namespace
}  // namespace fleetsim
