// kube-scheduler's GangScheduling plugin (gang_gate.hpp): PreEnqueue until minCount pods exist,
// Permit until minCount are assumed or bound, the group's 5-minute deadline. Translated from
// kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go (PreEnqueue
// and Permit, the Permit form of the plugin) and scheduler-plugins pkg/coscheduling/core
// core_test.go TestPermit, run through the scheduler's passes instead of the plugin alone.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/kube/kube_scheduler.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct GangRig {
  GangRig() : scheduler(sim, cluster, bus, [this](PodId p) { unschedulable.push_back(p); }) {
    scheduler.enable_gangs();
  }
  GangRig(const GangRig&) = delete;
  GangRig& operator=(const GangRig&) = delete;

  void pass() {
    scheduler.request_pass();
    sim.run_until(sim.now());
  }
  // A spec of the PodGroup "train" with this minCount (kNoPodGroup: the group is missing).
  const PodSpec* gang_spec(std::int32_t min_count, std::int64_t cpu_millis = 3000) {
    PodSpec s;
    s.requests = pod_requests(cpu_millis, 1024);
    s.pod_group = "train";
    s.gang_min_count = min_count;
    return specs.add(std::move(s));
  }
  PodId pending(const PodSpec* spec) { return add_pending_pod(cluster, spec, sim.now()); }
  bool bound(PodId p) const { return cluster.pod(p).phase == PodPhase::Running; }

  Simulation sim{3};
  Cluster cluster;
  RecordingBus bus;
  SpecStore specs;
  std::vector<PodId> unschedulable;
  KubeScheduler scheduler;
};

}  // namespace

// gangscheduling_test.go PreEnqueue: "pod group is not complete" (fewer pods than minCount)
// is rejected, and the pod that completes the group lets them all in.
TEST_CASE("a gang short of pods waits at PreEnqueue unseen by provisioners", "[kube]") {
  GangRig rig;
  const PodSpec* spec = rig.gang_spec(3);
  const PodId a = rig.pending(spec), b = rig.pending(spec);
  rig.pass();
  // Never tried: no PodScheduled condition, so neither Karpenter nor the Cluster Autoscaler
  // acts for them.
  CHECK(rig.cluster.pod(a).gated);
  CHECK(rig.cluster.pod(b).gated);
  CHECK(rig.unschedulable.empty());

  const PodId c = rig.pending(spec);
  rig.pass();
  CHECK_FALSE(rig.cluster.pod(a).gated);
  // No node at all: each is tried and found unschedulable.
  CHECK(rig.unschedulable == std::vector<PodId>{a, b, c});
}

// PreEnqueue: "workload does not exist" — the pod waits until its PodGroup appears.
TEST_CASE("a pod whose PodGroup is missing is never tried", "[kube]") {
  GangRig rig;
  add_node(rig.cluster, {.name = "n1"});
  const PodId p = rig.pending(rig.gang_spec(PodSpec::kNoPodGroup));
  rig.pass();
  CHECK(rig.cluster.pod(p).gated);
  CHECK_FALSE(rig.bound(p));
  CHECK(rig.unschedulable.empty());
}

// Permit: "quorum not met: wait", then "quorum met: allow all waiting pods".
TEST_CASE("a gang binds only when all its pods fit: partial then complete", "[kube]") {
  GangRig rig;
  // Each node holds one pod (3 of its 4 CPUs).
  add_node(rig.cluster, {.name = "n1"});
  add_node(rig.cluster, {.name = "n2"});
  const PodSpec* spec = rig.gang_spec(3);
  const PodId a = rig.pending(spec), b = rig.pending(spec), c = rig.pending(spec);
  rig.pass();
  // Two are assumed and wait at Permit; the third fits nowhere.
  CHECK(rig.bus.count(EventKind::PodWaitingOnPermit) == 2);
  CHECK(rig.bus.count(EventKind::PodScheduled) == 0);
  CHECK_FALSE(rig.bound(a));
  CHECK(rig.cluster.pod(a).permit_node != kNoNode);
  CHECK(rig.cluster.pod(b).permit_node != kNoNode);
  CHECK(rig.cluster.pod(c).permit_node == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{c});
  // The assumed pods keep their nodes' room: the nodes stay empty to every other controller.
  CHECK(rig.cluster.node(0).pods.empty());

  rig.sim.run_until(at(seconds(40)));
  add_node(rig.cluster, {.name = "n3"});
  rig.scheduler.cluster_changed();
  rig.sim.run_until(rig.sim.now());
  CHECK(rig.bound(a));
  CHECK(rig.bound(b));
  CHECK(rig.bound(c));
  // All three bind at the instant the last one is assumed.
  CHECK(rig.bus.seconds_of(EventKind::PodScheduled) == std::vector<double>{40, 40, 40});
  CHECK(rig.cluster.node(0).pods.size() == 1);
  CHECK(rig.cluster.node(2).pods.size() == 1);
  CHECK(rig.bus.count(EventKind::PodGroupTimeout) == 0);
}

// coscheduling core_test.go TestPermit "pod belongs to a pg that has enough pods": a bound pod
// of the group counts toward the quorum (assumed or assigned pods).
TEST_CASE("a bound pod of the group counts toward its quorum", "[kube]") {
  GangRig rig;
  const NodeId n1 = add_node(rig.cluster, {.name = "n1"});
  add_node(rig.cluster, {.name = "n2"});
  const PodSpec* spec = rig.gang_spec(2);
  const PodId running = rig.pending(spec);
  rig.cluster.bind(running, n1, rig.sim.now());
  const PodId p = rig.pending(spec);
  rig.pass();
  CHECK(rig.bound(p));
  CHECK(rig.bus.count(EventKind::PodWaitingOnPermit) == 0);
}

// The workload manager's SchedulingTimeout (5 minutes from the first pod that waits) and the
// framework's rejection of every waiting pod when it passes; the rejected pods come back with
// the unschedulable pool's leftover flush, wait again and get a new deadline.
TEST_CASE("a gang's Permit wait times out and its pods are rejected then retried", "[kube]") {
  GangRig rig;
  add_node(rig.cluster, {.name = "n1"});
  add_node(rig.cluster, {.name = "n2"});
  const PodSpec* spec = rig.gang_spec(3);
  const PodId a = rig.pending(spec), b = rig.pending(spec);
  // The third needs more than any node has.
  PodSpec big = *spec;
  big.requests = pod_requests(8000, 1024);
  const PodId c = rig.pending(rig.specs.add(big));
  rig.pass();
  CHECK(rig.bus.seconds_of(EventKind::PodWaitingOnPermit) == std::vector<double>{0, 0});

  rig.sim.run_until(at(seconds(299)));
  CHECK(rig.cluster.pod(a).permit_node != kNoNode);
  rig.sim.run_until(at(seconds(300)));
  CHECK(rig.cluster.pod(a).permit_node == kNoNode);
  CHECK(rig.cluster.pod(b).permit_node == kNoNode);
  CHECK_FALSE(rig.bound(a));
  const auto timeouts = rig.bus.of_kind(EventKind::PodGroupTimeout);
  REQUIRE(timeouts.size() == 1);
  CHECK(timeouts[0].message == "default/train");
  CHECK(rig.bus.seconds_of(EventKind::PodPermitRejected) == std::vector<double>{300, 300});
  // Rejected as Unschedulable: the provisioner hears of them again.
  CHECK(std::count(rig.unschedulable.begin(), rig.unschedulable.end(), a) == 1);
  CHECK(std::count(rig.unschedulable.begin(), rig.unschedulable.end(), c) >= 1);

  // A node event does not bring a Permit-rejected pod back (GangScheduling registers none);
  // the leftover flush does, at the first 30 s tick past 5 minutes in the pool: 630 s.
  rig.sim.run_until(at(seconds(400)));
  add_node(rig.cluster, {.name = "n3", .allocatable = node_allocatable(1000, 16)});
  rig.scheduler.cluster_changed();
  rig.sim.run_until(at(seconds(629)));
  CHECK(rig.bus.count(EventKind::PodWaitingOnPermit) == 2);
  rig.sim.run_until(at(seconds(630)));
  CHECK(rig.bus.seconds_of(EventKind::PodWaitingOnPermit) == std::vector<double>{0, 0, 630, 630});
  // The new deadline is 5 minutes on: 930 s.
  rig.sim.run_until(at(seconds(929)));
  CHECK(rig.bus.count(EventKind::PodGroupTimeout) == 1);
  rig.sim.run_until(at(seconds(930)));
  CHECK(rig.bus.count(EventKind::PodGroupTimeout) == 2);
}

// A waiting pod's node going away gives the pod back to the queue at once.
TEST_CASE("a pod waiting at Permit is rejected when its node goes away", "[kube]") {
  GangRig rig;
  const NodeId n1 = add_node(rig.cluster, {.name = "n1"});
  const PodId a = rig.pending(rig.gang_spec(2));
  rig.pending(rig.gang_spec(2));  // another spec of the same group: a second Job, say
  rig.pass();
  CHECK(rig.cluster.pod(a).permit_node == n1);
  rig.sim.run_until(at(seconds(10)));
  rig.cluster.begin_node_deletion(n1, rig.sim.now(), at(seconds(70)), NodeDeletionReason::Empty);
  rig.scheduler.cluster_changed();
  rig.sim.run_until(rig.sim.now());
  CHECK(rig.cluster.pod(a).permit_node == kNoNode);
  const auto rejected = rig.bus.of_kind(EventKind::PodPermitRejected);
  REQUIRE(rejected.size() == 1);
  CHECK(rejected[0].message == "node going away");
  CHECK(rig.bus.count(EventKind::PodGroupTimeout) == 0);
}
