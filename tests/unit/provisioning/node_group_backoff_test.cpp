// Node-group backoff after failed scale-ups, from upstream's exponential_backoff_test.go.
#include "fleetsim/provisioning/cluster_autoscaler/node_group_backoff.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

// TestMaxBackoff (initial 1m, max 3m).
TEST_CASE("a failure backs off for the initial duration, doubling only once it ended",
          "[provisioning][cluster-autoscaler][backoff]") {
  NodeGroupBackoff b(1, minutes(1), minutes(3));
  const SimTime start = kSimStart;
  CHECK_FALSE(b.backed_off(0, start));
  b.fail(0, start);
  CHECK(b.backed_off(0, start));
  CHECK(b.backed_off(0, start + minutes(1)));  // until is inclusive: !(until < now)
  CHECK_FALSE(b.backed_off(0, start + minutes(1) + millis(1)));
  // A failure at 1m, when the backoff has not ended (1m is not before 1m): no doubling, until 2m.
  b.fail(0, start + minutes(1));
  CHECK(b.backed_off(0, start + minutes(1)));
  CHECK(b.backed_off(0, start + minutes(2)));
  CHECK_FALSE(b.backed_off(0, start + minutes(2) + millis(1)));
  CHECK_FALSE(b.backed_off(0, start + minutes(3)));
  // A failure at 3m, after the backoff ended: 2m, until 5m.
  b.fail(0, start + minutes(3));
  CHECK(b.backed_off(0, start + minutes(3)));
  CHECK(b.backed_off(0, start + minutes(5)));
  CHECK_FALSE(b.backed_off(0, start + minutes(5) + millis(1)));
  CHECK_FALSE(b.backed_off(0, start + minutes(6)));
  // Beyond upstream's test: the next doubling (4m) is capped at the max, 3m: until 9m.
  b.fail(0, start + minutes(6));
  CHECK(b.backed_off(0, start + minutes(9)));
  CHECK_FALSE(b.backed_off(0, start + minutes(9) + millis(1)));
}

// TestIncreaseExistingBackoff (initial 1s, max 10m): a failure during a backoff moves its end
// but keeps its duration.
TEST_CASE("a failure during a backoff restarts it with the same duration",
          "[provisioning][cluster-autoscaler][backoff]") {
  NodeGroupBackoff b(1, seconds(1), minutes(10));
  SimTime now = at(hours(12));
  b.fail(0, now);
  CHECK(b.backed_off(0, now));
  now += seconds(1) + millis(1);
  CHECK_FALSE(b.backed_off(0, now));
  b.fail(0, now);  // the backoff had ended: 2s
  CHECK(b.backed_off(0, now));
  now += seconds(1);
  b.fail(0, now);  // still backed off: 2s again from here
  CHECK(b.backed_off(0, now + seconds(2)));
  CHECK_FALSE(b.backed_off(0, now + seconds(2) + millis(1)));
}

// TestBackoffTwoKeys (initial 10m): groups back off independently.
TEST_CASE("node groups back off independently", "[provisioning][cluster-autoscaler][backoff]") {
  NodeGroupBackoff b(2, minutes(10), hours(1));
  const SimTime start = kSimStart;
  CHECK_FALSE(b.backed_off(0, start));
  CHECK_FALSE(b.backed_off(1, start));
  b.fail(0, start + minutes(1));
  CHECK(b.backed_off(0, start + minutes(2)));
  CHECK_FALSE(b.backed_off(1, start));
  CHECK_FALSE(b.backed_off(1, start + minutes(2)));
  CHECK(b.backed_off(0, start + minutes(11)));
  CHECK_FALSE(b.backed_off(0, start + minutes(11) + millis(1)));
}

// TestResetStaleBackoffData (initial 1m, max 3m, reset 3h): failures at 0 and 1h; at 4h the
// first entry is stale (0 + 3h is before 4h) and the second is not (1h + 3h is not before 4h);
// at 5h both are. fleetsim has no entry count: a forgotten entry shows as a next failure that
// backs off for the initial duration instead of twice the last.
TEST_CASE("a group's backoff is forgotten 3 hours after its last failure",
          "[provisioning][cluster-autoscaler][backoff]") {
  CHECK(kNodeGroupBackoffReset == hours(3));
  const SimTime start = kSimStart;
  {
    NodeGroupBackoff b(2, minutes(1), minutes(3));
    b.fail(0, start);
    b.fail(1, start + hours(1));
    CHECK_FALSE(b.backed_off(0, start + hours(1)));
    CHECK(b.backed_off(1, start + hours(1)));
    const SimTime t = start + hours(4);
    b.fail(0, t);  // forgotten: 1m
    b.fail(1, t);  // kept, its backoff over: 2m
    CHECK(b.backed_off(0, t + minutes(1)));
    CHECK_FALSE(b.backed_off(0, t + minutes(1) + millis(1)));
    CHECK(b.backed_off(1, t + minutes(2)));
    CHECK_FALSE(b.backed_off(1, t + minutes(2) + millis(1)));
  }
  {
    NodeGroupBackoff b(2, minutes(1), minutes(3));
    b.fail(0, start);
    b.fail(1, start + hours(1));
    const SimTime t = start + hours(5);
    b.fail(0, t);  // both forgotten: 1m each
    b.fail(1, t);
    CHECK_FALSE(b.backed_off(0, t + minutes(1) + millis(1)));
    CHECK_FALSE(b.backed_off(1, t + minutes(1) + millis(1)));
    CHECK(b.backed_off(1, t + minutes(1)));
  }
  {
    // The boundary: 1 ms past 3 h after the last failure the group starts over at 1m.
    NodeGroupBackoff b(1, minutes(1), minutes(3));
    b.fail(0, start);
    CHECK_FALSE(b.backed_off(0, start + hours(3) + millis(1)));
    b.fail(0, start + hours(3) + millis(1));
    CHECK_FALSE(b.backed_off(0, start + hours(3) + minutes(1) + millis(2)));
  }
}
