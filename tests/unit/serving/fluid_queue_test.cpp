// FluidQueue, the fluid mode's router queue: first come first served with each piece's arrivals
// spread over it, so that each admitted request waits its own wait.
#include "fleetsim/serving/fluid_queue.hpp"

#include <catch2/catch.hpp>
#include <vector>

namespace fleetsim {
namespace {

SimTime t(double s) { return at(from_seconds(s)); }

TEST_CASE("a fluid queue admits first come first served and each request waits its own wait") {
  FluidQueue queue;
  queue.arrive(t(0), t(10), 10);  // one a second
  // From 10 s, two a second: the request at position x arrived at x s and is admitted at
  // 10 + x ÷ 2 s, so it waited 10 − x ÷ 2 s.
  CHECK(queue.admit(t(10), t(15), 0, 2) == Approx(10));
  CHECK(queue.empty());
  CHECK(queue.wait(0) == Approx(10));
  CHECK(queue.wait(0.5) == Approx(7.5));
  CHECK(queue.wait(0.9) == Approx(5.5));

  // Behind a backlog, a piece's own arrivals wait for it: five left over from before 10 s are
  // admitted first, one a second, and then the piece's, which arrive two a second.
  queue.arrive(t(5), t(10), 5);
  queue.arrive(t(10), t(15), 10);
  CHECK(queue.admit(t(10), t(20), 0, 1) == Approx(10));
  CHECK(queue.size() == Approx(5));
  CHECK(queue.wait(0.1) == Approx(5));  // x = 1: arrived at 6 s, admitted at 11 s
  CHECK(queue.wait(0.7) == Approx(6));  // x = 7: arrived at 11 s, admitted at 17 s
}

TEST_CASE("free slots take a fluid queue's arrivals as they come") {
  FluidQueue queue;
  queue.arrive(t(0), t(4), 4);
  // Two free slots and one a second: the queue never builds.
  CHECK(queue.admit(t(0), t(4), 2, 1) == Approx(4));
  for (double u : {0.0, 0.3, 0.6, 0.9}) CHECK(queue.wait(u) == 0);
  // Nothing admitted: no wait.
  CHECK(queue.admit(t(4), t(8), 0, 1) == 0);
  CHECK(queue.wait(0.5) == 0);
}

TEST_CASE("a fluid queue times out its oldest and turns away its newest") {
  FluidQueue queue;
  queue.arrive(t(0), t(10), 10);
  queue.arrive(t(10), t(20), 10);
  std::vector<FluidQueue::Part> out;
  queue.time_out(t(4), out);  // those that arrived before 4 s
  REQUIRE(out.size() == 1);
  CHECK(out[0].count == Approx(4));
  CHECK(out[0].arrival == t(2));
  queue.trim_to(11, out);  // the last 5 of the second chunk
  REQUIRE(out.size() == 1);
  CHECK(out[0].count == Approx(5));
  CHECK(out[0].arrival == t(17.5));
  std::vector<FluidQueue::Part> left;
  queue.for_each([&](const FluidQueue::Part& p) { left.push_back(p); });
  REQUIRE(left.size() == 2);
  CHECK(left[0].count == Approx(6));
  CHECK(left[0].arrival == t(7));
  CHECK(left[1].count == Approx(5));
  CHECK(left[1].arrival == t(12.5));
  // A whole chunk past its time goes at once.
  queue.time_out(t(16), out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].count == Approx(6));
  CHECK(out[1].count == Approx(5));
  CHECK(queue.empty());
}

}  // namespace
}  // namespace fleetsim
