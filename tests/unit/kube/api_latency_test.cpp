// The API's time: zero, fixed, or log-normal with the median and p99 asked for.
#include "fleetsim/kube/api_latency.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

TEST_CASE("zero API latency takes no time and no draw", "[kube]") {
  ApiLatencyDraws zero(ApiLatency{}, RngStream(1, "api-latency"));
  CHECK(zero.next() == SimDuration{0});
  CHECK(zero.next() == SimDuration{0});
}

TEST_CASE("a p99 equal to the median is a fixed latency", "[kube]") {
  ApiLatencyDraws fixed(ApiLatency{.median = millis(30), .p99 = millis(30)},
                        RngStream(1, "api-latency"));
  CHECK(fixed.next() == millis(30));
  CHECK(fixed.next() == millis(30));
}

TEST_CASE("the default API latency has its median and p99 at 20 ms and 200 ms", "[kube]") {
  ApiLatencyDraws draws(kDefaultApiLatency, RngStream(7, "api-latency"));
  std::vector<SimDuration> d(200'000);
  for (SimDuration& x : d) x = draws.next();
  std::sort(d.begin(), d.end());
  const double median_ms = static_cast<double>(d[d.size() / 2].count()) / 1000.0;
  const double p99_ms = static_cast<double>(d[d.size() * 99 / 100].count()) / 1000.0;
  CHECK(median_ms == Approx(20.0).epsilon(0.02));
  CHECK(p99_ms == Approx(200.0).epsilon(0.05));
  // Within the SIG-Scalability SLO (p99 <= 1 s), with room: about 4 calls in 100,000 exceed 1 s.
  const auto over = std::count_if(d.begin(), d.end(), [](SimDuration x) { return x > seconds(1); });
  CHECK(over < 40);
  CHECK(d.front() > SimDuration{0});
}

TEST_CASE("the draws come from the stream given, one per call", "[kube]") {
  ApiLatencyDraws a(kDefaultApiLatency, RngStream(3, "api-latency"));
  ApiLatencyDraws b(kDefaultApiLatency, RngStream(3, "api-latency"));
  ApiLatencyDraws other(kDefaultApiLatency, RngStream(4, "api-latency"));
  const SimDuration first = a.next();
  CHECK(b.next() == first);
  CHECK(a.next() != first);
  CHECK(other.next() != first);
}
