// kube-scheduler's scheduling queue (pkg/scheduler/backend/queue).
#include "fleetsim/kube/scheduling_queue.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

// backoff_queue.go calculateBackoffDuration: 1 s doubling per attempt, at most 10 s
// (scheduling_queue_test.go TestPriorityQueue_calculateBackoffDuration's defaults).
TEST_CASE("a pod's backoff doubles from 1 s to at most 10 s", "[kube]") {
  CHECK(SchedulingQueue::backoff(1) == seconds(1));
  CHECK(SchedulingQueue::backoff(2) == seconds(2));
  CHECK(SchedulingQueue::backoff(3) == seconds(4));
  CHECK(SchedulingQueue::backoff(4) == seconds(8));
  CHECK(SchedulingQueue::backoff(5) == seconds(10));
  CHECK(SchedulingQueue::backoff(40) == seconds(10));
}
