#include "fleetsim/core/latency_sketch.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "fleetsim/core/rng.hpp"

using namespace fleetsim;

namespace {

// The exact nearest-rank quantile of sorted values.
double exact(const std::vector<double>& sorted, double q) {
  auto rank = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size()))));
  return sorted[rank - 1];
}

}  // namespace

TEST_CASE("sketch quantiles stay within 1% of the exact ones", "[core]") {
  // Log-normal latencies spanning four orders of magnitude, like TTFT under load.
  RngStream rng(3, "latencies");
  LatencySketch sketch(0.01);
  std::vector<double> values;
  for (int i = 0; i < 200'000; ++i) {
    double v = rng.lognormal(0.25, 1.5);
    values.push_back(v);
    sketch.add(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999}) {
    double truth = exact(values, q);
    CHECK(std::abs(sketch.quantile(q) - truth) <= 0.01 * truth);
  }
  CHECK(sketch.quantile(0.0) == values.front());
  CHECK(sketch.quantile(1.0) == values.back());
  CHECK(sketch.count() == 200'000);
}

TEST_CASE("the sketch's mean, min and max are exact", "[core]") {
  LatencySketch sketch;
  for (double v : {0.5, 1.5, 2.0, 0.0}) sketch.add(v);
  CHECK(sketch.mean() == 1.0);
  CHECK(sketch.min() == 0.0);
  CHECK(sketch.max() == 2.0);
  CHECK(sketch.quantile(0.25) == 0.0);  // the zero is counted exactly
}

TEST_CASE("merged sketches answer as one sketch of all values", "[core]") {
  LatencySketch a, b, all;
  for (int i = 1; i <= 1000; ++i) {
    double v = 0.001 * i;
    (i % 3 == 0 ? a : b).add(v);
    all.add(v);
  }
  a.merge(b);
  for (double q : {0.1, 0.5, 0.99}) CHECK(a.quantile(q) == all.quantile(q));
  CHECK(a.count() == all.count());
  CHECK(a.sum() == Approx(all.sum()));
}

TEST_CASE("adding a value to two sketches at once is adding it to each", "[core]") {
  // The run's and the interval's sketches share a bucket computation (ServingStats).
  LatencySketch pair_a, pair_b, one_a, one_b;
  one_b.add(7.0);  // the two sketches' dense ranges start apart
  pair_b.add(7.0);
  RngStream rng(5, "pairs");
  for (int i = 0; i < 10'000; ++i) {
    const double v = i % 100 == 0 ? 0.0 : rng.lognormal(0.02, 2.0);
    LatencySketch::add(v, pair_a, pair_b);
    one_a.add(v);
    one_b.add(v);
  }
  for (double q : {0.0, 0.01, 0.5, 0.9, 0.999, 1.0}) {
    CHECK(pair_a.quantile(q) == one_a.quantile(q));
    CHECK(pair_b.quantile(q) == one_b.quantile(q));
  }
  CHECK(pair_a.sum() == one_a.sum());
  CHECK(pair_b.count() == 10'001);
}

TEST_CASE("an empty sketch reads as zero", "[core]") {
  LatencySketch sketch;
  CHECK(sketch.quantile(0.99) == 0.0);
  CHECK(sketch.mean() == 0.0);
}

TEST_CASE("every value's bucket answers within 1% of it, across 13 decades", "[core]") {
  // With the bits-and-cubic index the buckets are no longer exact powers of gamma; the guarantee
  // must hold for every value, at bucket edges and powers of two included. Between an exact
  // minimum and maximum far away, the median of three is the middle value's bucket estimate.
  RngStream rng(4, "log-uniform");
  std::vector<double> values;
  for (int i = 0; i < 100'000; ++i) values.push_back(std::pow(10.0, -8.0 + 12.0 * rng.uniform()));
  for (int e = -26; e < 13; ++e) {
    values.push_back(std::ldexp(1.0, e));
    values.push_back(std::nextafter(std::ldexp(1.0, e), 0.0));
  }
  double worst = 0;
  for (double v : values) {
    LatencySketch sketch(0.01);
    sketch.add(1e-9);
    sketch.add(v);
    sketch.add(1e5);
    worst = std::max(worst, std::abs(sketch.quantile(0.5) - v) / v);
  }
  CHECK(worst <= 0.01);
  CHECK(worst > 0.0099);  // the buckets use the accuracy they are given, not much less
}
