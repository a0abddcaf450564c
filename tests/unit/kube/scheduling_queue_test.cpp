// kube-scheduler's scheduling queue (pkg/scheduler/backend/queue).
#include "fleetsim/kube/scheduling_queue.hpp"

#include <catch2/catch.hpp>
#include <vector>

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

namespace {

// One pending pod in a cluster, and the ids the queue offers at `now`.
struct QueueRig {
  QueueRig() {
    spec.requests[resource::kPods] = 1;
    Pod p;
    p.name = "p";
    p.spec = &spec;
    p.namespace_name = "default";
    id = cluster.add_pod(std::move(p));
  }
  std::vector<PodId> offered(SimTime now) {
    std::vector<const Pod*> out;
    queue.active(cluster, now, out);
    std::vector<PodId> ids;
    for (const Pod* p : out) ids.push_back(p->id);
    return ids;
  }
  PodSpec spec;
  Cluster cluster;
  SchedulingQueue queue;
  PodId id = 0;
};

}  // namespace

// A pod rejected at Permit lists GangScheduling as its unschedulable plugin, whose queueing
// hints register no node or AssignedPodDelete event: MoveAllToActiveOrBackoffQueue skips it, and
// the plugin's Activate (ForceActivate) brings it back at once, with no backoff.
TEST_CASE("a Permit-rejected pod waits for Activate or the leftover flush", "[kube]") {
  QueueRig rig;
  const SimTime t0 = at(seconds(100));
  rig.queue.failed(rig.cluster.pod(rig.id), t0, /*permit_rejected=*/true);
  rig.queue.move(rig.cluster);
  CHECK(rig.offered(at(seconds(200))).empty());
  rig.queue.activate(rig.cluster, [](const Pod&) { return true; });
  CHECK(rig.offered(t0) == std::vector<PodId>{rig.id});

  // A pod that failed for room is moved, and waits out its backoff.
  QueueRig plain;
  plain.queue.failed(plain.cluster.pod(plain.id), t0);
  plain.queue.move(plain.cluster);
  CHECK(plain.offered(t0).empty());
  CHECK(plain.offered(t0 + seconds(1)) == std::vector<PodId>{plain.id});

  // The leftover flush moves a Permit-rejected pod after 5 minutes in the pool.
  QueueRig flushed;
  flushed.queue.failed(flushed.cluster.pod(flushed.id), t0, /*permit_rejected=*/true);
  flushed.queue.flush_leftover(t0 + minutes(5));
  CHECK(flushed.offered(t0 + minutes(6)).empty());
  flushed.queue.flush_leftover(t0 + minutes(5) + seconds(1));
  CHECK(flushed.offered(t0 + minutes(6)) == std::vector<PodId>{flushed.id});
}
