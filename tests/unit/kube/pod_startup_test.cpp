#include "fleetsim/kube/pod_startup.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

TEST_CASE("an image pull takes size over bandwidth, once per node", "[kube]") {
  NodeImageStore node(100'000'000);  // 100 MB/s
  // 10 GB: 100 s.
  CHECK(node.available_at("vllm:1", 10'000'000'000, at(seconds(5))) == at(seconds(105)));
  // A second pod of the same image waits for the same pull, then finds it cached.
  CHECK(node.available_at("vllm:1", 10'000'000'000, at(seconds(50))) == at(seconds(105)));
  CHECK(node.available_at("vllm:1", 10'000'000'000, at(seconds(200))) == at(seconds(200)));
}

TEST_CASE("the kubelet pulls one image at a time", "[kube]") {
  NodeImageStore node(50'000'000);
  CHECK(node.available_at("a", 1'000'000'000, kSimStart) == at(seconds(20)));
  // Asked for at 5 s, b starts after a is done: 20 s + 10 s.
  CHECK(node.available_at("b", 500'000'000, at(seconds(5))) == at(seconds(30)));
  // A pull rounds up to the microsecond.
  NodeImageStore slow(3);
  CHECK(slow.available_at("c", 1, kSimStart) == at(micros(333'334)));
}

TEST_CASE("an empty image name or size needs no pull", "[kube]") {
  NodeImageStore node(1);
  CHECK(node.available_at("", 10, at(seconds(3))) == at(seconds(3)));
  CHECK(node.available_at("x", 0, at(seconds(3))) == at(seconds(3)));
}

TEST_CASE("readiness follows the probe grid after the server is up", "[kube]") {
  const SimTime bound = at(seconds(100));
  const SimTime started = at(seconds(160));  // image pulled
  const SimTime up = at(seconds(220));       // model loaded
  SECTION("no probe: Ready when the server is up") {
    CHECK(pod_ready_time(bound, started, up, std::nullopt, std::nullopt) == up);
  }
  SECTION("period 10 s from the pod's start: the first probe at or after 220 s") {
    ProbeTiming readiness{.initial_delay = seconds(15), .period = seconds(10)};
    CHECK(pod_ready_time(bound, started, up, std::nullopt, readiness) == at(seconds(220)));
    CHECK(pod_ready_time(bound, started, up + seconds(1), std::nullopt, readiness) ==
          at(seconds(230)));
  }
  SECTION("initial delay counts from the containers' start") {
    ProbeTiming readiness{.initial_delay = seconds(90), .period = seconds(7)};
    // Not before 160 + 90 = 250 s; the grid is 100 + 7k: 254 s.
    CHECK(pod_ready_time(bound, started, up, std::nullopt, readiness) == at(seconds(254)));
  }
  SECTION("success threshold: that many passes in a row") {
    ProbeTiming readiness{.period = seconds(10), .success_threshold = 3};
    CHECK(pod_ready_time(bound, started, up, std::nullopt, readiness) == at(seconds(240)));
  }
  SECTION("a startup probe gates the readiness probe") {
    ProbeTiming startup{.period = seconds(30)};
    ProbeTiming readiness{.period = seconds(20)};
    // Startup passes at 100 + 30k ≥ 220: 220 s; readiness at 100 + 20k ≥ 220: 220 s.
    CHECK(pod_ready_time(bound, started, up, startup, readiness) == at(seconds(220)));
    ProbeTiming late_startup{.initial_delay = seconds(70), .period = seconds(25)};
    // Startup: ≥ 230 on 100 + 25k: 250 s; readiness then at 100 + 20k ≥ 250: 260 s.
    CHECK(pod_ready_time(bound, started, up, late_startup, readiness) == at(seconds(260)));
    CHECK(pod_ready_time(bound, started, up, late_startup, std::nullopt) == at(seconds(250)));
  }
}

// Issue #13's case: periodSeconds 8589 × successThreshold 2^31 − 1 overflowed int64 µs and
// stopped the run with an internal error; the pod is simply never Ready.
TEST_CASE("a readiness probe that cannot pass within int64 time makes the pod never Ready",
          "[kube]") {
  const ProbeTiming probe{
      .initial_delay = seconds(0), .period = seconds(8589), .success_threshold = 2147483647};
  CHECK(pod_ready_time(kSimStart, at(seconds(1)), at(seconds(1)), std::nullopt, probe) == kNever);
  // A long but representable wait still comes out exact: 3 passes 10 s apart from 10 s.
  const ProbeTiming three{
      .initial_delay = seconds(10), .period = seconds(10), .success_threshold = 3};
  CHECK(pod_ready_time(kSimStart, kSimStart, kSimStart, std::nullopt, three) == at(seconds(30)));
}
