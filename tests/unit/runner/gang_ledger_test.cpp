// report.json's gangs section: nodes held idle by partial gangs (gang_ledger.hpp) and the
// PodGroups' Permit timeouts, from the events kube-scheduler's GangScheduling plugin emits.
#include <catch2/catch.hpp>

#include "unit/runner/recorder_world.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

RunInfo gang_info() {
  RunInfo info = run_info();
  info.gangs = true;
  return info;
}

void wait_on(RecorderWorld& w, double t, PodId pod, NodeId node) {
  w.emit({.time = RecorderWorld::at_s(t),
          .kind = EventKind::PodWaitingOnPermit,
          .node = node,
          .pod = pod,
          .message = "default/train"});
}

}  // namespace

TEST_CASE("a node is held by a partial gang from its first waiting pod to a binding", "[runner]") {
  RunRecorder rec(gang_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  // $36/h and 8 GPUs.
  const WorkloadId job = w.workload("train", WorkloadKind::Job);
  const NodeId n = w.node({.price = 36.0, .gpus = 8});
  const PodId a = w.pod({.workload = job, .gpus = 8});
  w.launch(0, n);
  w.ready(60, n);
  w.create(0, a);
  wait_on(w, 100, a, n);
  // Timed out at 400 and waiting again at 700: the node stays held in between.
  w.emit({.time = RecorderWorld::at_s(400),
          .kind = EventKind::PodGroupTimeout,
          .message = "default/train",
          .pods = 3});
  wait_on(w, 700, a, n);
  w.bind(1000, a, n);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  REQUIRE(r.gangs);
  // 900 s of 8 GPUs: 2 GPU-hours; a quarter hour at $36/h.
  CHECK(rounded(r.gangs->idle_gpu_hours) == 2.0);
  CHECK(rounded(r.gangs->idle_node_hours) == 0.25);
  CHECK(rounded(r.gangs->idle_usd) == 9.0);
  CHECK(r.gangs->permit_waits == 2);
  CHECK(r.gangs->permit_timeouts == 1);
  CHECK(r.gangs->pods_rejected == 3);
}

TEST_CASE("a gang pod waiting beside a running pod holds no idle node", "[runner]") {
  RunRecorder rec(gang_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  const NodeId n = w.node({.price = 36.0, .gpus = 8});
  const WorkloadId job = w.workload("train", WorkloadKind::Job);
  const PodId running = w.pod({.workload = job, .gpus = 4});
  const PodId waiting = w.pod({.workload = job, .gpus = 4});
  w.launch(0, n);
  w.bind(60, running, n);
  wait_on(w, 100, waiting, n);
  w.end(at(hours(1)));
  CHECK(rec.result(0).gangs->idle_gpu_hours == 0.0);
}

TEST_CASE("a held node counts until it stops billing or the run ends", "[runner]") {
  RunRecorder rec(gang_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  const NodeId gone = w.node({.name = "gone", .price = 36.0, .gpus = 8});
  const NodeId kept = w.node({.name = "kept", .price = 36.0, .gpus = 8});
  const WorkloadId job = w.workload("train", WorkloadKind::Job);
  const PodId a = w.pod({.workload = job, .gpus = 8});
  const PodId b = w.pod({.workload = job, .gpus = 8});
  w.launch(0, gone);
  w.launch(0, kept);
  wait_on(w, 0, a, gone);
  wait_on(w, 1800, b, kept);
  w.terminate(900, gone, NodeDeletionReason::Empty);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  // 900 s on the first, 1,800 s on the second: 2,700 s of 8 GPUs.
  CHECK(rounded(r.gangs->idle_gpu_hours) == 6.0);
}

TEST_CASE("a run without PodGroups has no gangs section", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  w.end(at(hours(1)));
  CHECK_FALSE(rec.result(0).gangs);
}
