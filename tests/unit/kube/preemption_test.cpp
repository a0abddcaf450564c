// The default preemption plugin: victims, node choice, and the scheduler's preemption cycle.
// Situations from kubernetes pkg/scheduler/framework/plugins/defaultpreemption/
// default_preemption_test.go, with its sizes: a node holds 500m, small 100m, medium 200m, large
// 300m, very large 500m (memory in proportion); priorities neg −100, low 0, mid 100, high 1000,
// very high 10000.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/kube/kube_scheduler.hpp"
#include "fleetsim/kube/preemption_victims.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

constexpr std::int32_t kNeg = -100, kLow = 0, kMid = 100, kHigh = 1000, kVeryHigh = 10000;

Resources sized(std::int64_t units) { return pod_requests(100 * units, 200 * units); }
const Resources kSmall = sized(1), kMedium = sized(2), kLarge = sized(3), kVeryLarge = sized(5);

Resources node_size() {
  Resources r = sized(5);
  r[resource::kPods] = 110;
  return r;
}

// A start time: day `d` of the run (upstream's startTime2019010d).
SimTime day(int d) { return at(hours(24 * d)); }

struct Machines {
  explicit Machines(int count) {
    for (int i = 1; i <= count; ++i)
      nodes.push_back(
          add_node(cluster, {.name = "machine" + std::to_string(i), .allocatable = node_size()}));
  }
  const PodSpec* spec(const Resources& requests, std::int32_t priority,
                      PreemptionPolicy policy = PreemptionPolicy::PreemptLowerPriority) {
    PodSpec s;
    s.requests = requests;
    s.priority = priority;
    s.preemption_policy = policy;
    return specs.add(std::move(s));
  }
  // A pod running on machine `m` (1-based) since `start`.
  PodId run(int m, const Resources& requests, std::int32_t priority, SimTime start = day(1),
            const Labels* labels = nullptr) {
    const PodId id = add_pending_pod(cluster, spec(requests, priority), start);
    if (labels != nullptr) pod_labels(id, labels);
    cluster.bind(id, nodes[static_cast<std::size_t>(m - 1)], start);
    cluster.pod_ready(id, start);
    return id;
  }
  void pod_labels(PodId id, const Labels* labels) {
    // The harness's pods carry no labels; a PDB test needs some.
    const_cast<Pod&>(cluster.pod(id)).labels = labels;
  }
  PodId preemptor(const Resources& requests, std::int32_t priority) {
    return add_pending_pod(cluster, spec(requests, priority), day(9), "preemptor");
  }
  // selectVictimsOnNode on every machine, then pickOneNodeForPreemption's choice.
  std::vector<NodeVictims> candidates(PodId preemptor_id,
                                      const PodDisruptionBudgets* pdbs = nullptr) const {
    std::vector<NodeVictims> out;
    for (NodeId n : nodes) {
      NodeVictims v =
          select_victims_on_node(cluster, cluster.pod(preemptor_id), n, cluster.node(n).available(),
                                 pdbs, pdb_allowances(pdbs));
      if (!v.pods.empty()) out.push_back(std::move(v));
    }
    return out;
  }
  std::string picked(PodId preemptor_id) const {
    const std::vector<NodeVictims> c = candidates(preemptor_id);
    REQUIRE_FALSE(c.empty());
    return cluster.node(c[pick_one_node(cluster, c)].node).name;
  }
  std::vector<std::string> names(const std::vector<PodId>& pods) const {
    std::vector<std::string> out;
    for (PodId p : pods) out.push_back(cluster.pod(p).name);
    return out;
  }

  Cluster cluster;
  SpecStore specs;
  std::vector<NodeId> nodes;
};

}  // namespace

// TestSelectNodesForPreemption: "a pod that would fit on the machines, but other pods running
// are higher priority".
TEST_CASE("no victims when every running pod has a higher priority", "[kube][preemption]") {
  Machines m(2);
  m.run(1, kLarge, kMid);
  m.run(2, kLarge, kMid);
  CHECK(m.candidates(m.preemptor(kLarge, kLow)).empty());
}

// TestSelectNodesForPreemption: "medium priority pod is preempted, but lower priority one stays
// as it is small".
TEST_CASE("the most important victims are reprieved first", "[kube][preemption]") {
  Machines m(2);
  const PodId a = m.run(1, kSmall, kLow);
  const PodId b = m.run(1, kLarge, kMid);
  const PodId c = m.run(2, kLarge, kMid);
  const std::vector<NodeVictims> got = m.candidates(m.preemptor(kLarge, kHigh));
  REQUIRE(got.size() == 2);
  CHECK(got[0].pods == std::vector<PodId>{b});
  CHECK(got[1].pods == std::vector<PodId>{c});
  CHECK(got[0].pdb_violations == 0);
  CHECK(m.cluster.pod(a).phase == PodPhase::Running);
}

// TestSelectNodesForPreemption: "mixed priority pods are preempted": the victims are listed most
// important first.
TEST_CASE("victims are listed by priority then start time", "[kube][preemption]") {
  Machines m(1);
  const PodId early_mid = m.run(1, kSmall, kMid, day(1));
  const PodId low = m.run(1, kSmall, kLow, day(1));
  const PodId late_mid = m.run(1, kSmall, kMid, day(2));
  const std::vector<NodeVictims> got = m.candidates(m.preemptor(kVeryLarge, kHigh));
  REQUIRE(got.size() == 1);
  CHECK(got[0].pods == std::vector<PodId>{early_mid, late_mid, low});
}

// TestSelectNodesForPreemption: "preemption with violation of same pdb" (a PDB allowing one
// disruption over two pods that must both go: one violation).
TEST_CASE("victims beyond a PDB's allowance count as violations", "[kube][preemption]") {
  Machines m(1);
  static const Labels kFoo{{"app", "foo"}};
  m.run(1, kMedium, kLow, day(1), &kFoo);
  m.run(1, kMedium, kLow, day(1), &kFoo);
  PodDisruptionBudgets pdbs(
      m.cluster, {PodDisruptionBudgetSpec{.name = "foo",
                                          .max_unavailable = IntOrPercent{1},
                                          .selector = LabelSelector{.match_labels = kFoo}}});
  const std::vector<NodeVictims> got = m.candidates(m.preemptor(kVeryLarge, kHigh), &pdbs);
  REQUIRE(got.size() == 1);
  CHECK(got[0].pods.size() == 2);
  CHECK(got[0].pdb_violations == 1);
}

// TestPickOneNodeForPreemption (and TestSelectBestCandidate), case by case.
TEST_CASE("pickOneNodeForPreemption follows upstream's order of criteria", "[kube][preemption]") {
  SECTION("a pod that fits on both machines when lower priority pods are preempted") {
    Machines m(2);
    m.run(1, kLarge, kMid);
    m.run(2, kLarge, kMid);
    CHECK(m.picked(m.preemptor(kLarge, kHigh)) == "machine1");  // a tie: the first
  }
  SECTION("machine with min highest priority pod is picked") {
    Machines m(3);
    m.run(1, kMedium, kMid);
    m.run(1, kLarge, kMid);
    m.run(2, kMedium, kMid);
    m.run(2, kMedium, kLow);
    m.run(3, kMedium, kLow);
    m.run(3, kMedium, kLow);
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine3");
  }
  SECTION("when highest priorities are the same minimum sum of priorities is picked") {
    Machines m(3);
    m.run(1, kMedium, kMid);
    m.run(1, kLarge, kMid);
    m.run(2, kLarge, kMid);
    m.run(2, kMedium, kLow);
    m.run(3, kMedium, kMid);
    m.run(3, kMedium, kMid);
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine2");
  }
  SECTION("when highest priority and sum are the same minimum number of pods is picked") {
    Machines m(3);
    m.run(1, kSmall, kMid);
    m.run(1, kSmall, kNeg);
    m.run(1, kSmall, kMid);
    m.run(1, kSmall, kNeg);
    m.run(2, kLarge, kMid);
    m.run(2, kMedium, kNeg);
    m.run(3, kMedium, kMid);
    m.run(3, kSmall, kNeg);
    m.run(3, kSmall, kLow);
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine2");
  }
  SECTION("sum of adjusted priorities is considered") {
    Machines m(3);
    m.run(1, kSmall, kMid);
    m.run(1, kSmall, kNeg);
    m.run(1, kSmall, kNeg);
    m.run(2, kLarge, kMid);
    m.run(2, kMedium, kNeg);
    m.run(3, kMedium, kMid);
    m.run(3, kSmall, kNeg);
    m.run(3, kSmall, kLow);
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine2");
  }
  SECTION("non-overlapping lowest high priority sum priorities and number of pods") {
    Machines m(4);
    m.run(1, kSmall, kMid);
    m.run(1, kSmall, kLow);
    m.run(1, kSmall, kLow);
    m.run(2, kLarge, kHigh);
    m.run(3, kMedium, kMid);
    m.run(3, kSmall, kLow);
    m.run(3, kSmall, kLow);
    m.run(3, kMedium, kLow);
    m.run(4, kMedium, kMid);
    m.run(4, kSmall, kMid);
    m.run(4, kSmall, kMid);
    m.run(4, kSmall, kNeg);
    CHECK(m.picked(m.preemptor(kVeryLarge, kVeryHigh)) == "machine1");
  }
  SECTION("same priority same number of victims different start time for each machine's pod") {
    Machines m(3);
    m.run(1, kMedium, kMid, day(3));
    m.run(1, kMedium, kMid, day(3));
    m.run(2, kMedium, kMid, day(4));
    m.run(2, kMedium, kMid, day(4));
    m.run(3, kMedium, kMid, day(2));
    m.run(3, kMedium, kMid, day(2));
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine2");
  }
  SECTION("same priority same number of victims different start time for all pods") {
    Machines m(3);
    m.run(1, kMedium, kMid, day(5));
    m.run(1, kMedium, kMid, day(3));
    m.run(2, kMedium, kMid, day(6));
    m.run(2, kMedium, kMid, day(2));
    m.run(3, kMedium, kMid, day(4));
    m.run(3, kMedium, kMid, day(7));
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine3");
  }
  SECTION("different priority same number of victims different start time for all pods") {
    Machines m(3);
    m.run(1, kMedium, kLow, day(5));
    m.run(1, kMedium, kMid, day(3));
    m.run(2, kMedium, kMid, day(7));
    m.run(2, kMedium, kLow, day(2));
    m.run(3, kMedium, kLow, day(4));
    m.run(3, kMedium, kMid, day(6));
    CHECK(m.picked(m.preemptor(kVeryLarge, kHigh)) == "machine2");
  }
}

namespace {

// A KubeScheduler over Machines; a preempted pod leaves when the test says so.
struct PreemptionRig : Machines {
  explicit PreemptionRig(int count)
      : Machines(count),
        scheduler(sim, cluster, bus, [this](PodId p) { unschedulable.push_back(p); }) {}
  void pass() {
    scheduler.request_pass();
    sim.run_until(sim.now());
  }
  // The victim's grace period ends: it leaves its node (the kubelet's exit).
  void victim_gone(PodId victim) {
    cluster.finish(victim, PodPhase::Deleted, sim.now());
    scheduler.cluster_changed();
  }
  Simulation sim{5};
  RecordingBus bus;
  std::vector<PodId> unschedulable;
  KubeScheduler scheduler;
};

}  // namespace

// TestPreempt "basic preemption logic": the preemptor is nominated to machine1, whose two
// low-priority pods are deleted; it binds there once they are gone.
TEST_CASE("a preemptor deletes its victims and binds when they are gone", "[kube][preemption]") {
  PreemptionRig rig(3);
  const PodId m11 = rig.run(1, kSmall, kLow, kSimStart);
  const PodId m12 = rig.run(1, kSmall, kLow, kSimStart);
  rig.run(2, kLarge, kHigh, kSimStart);
  rig.run(3, kMedium, kMid, kSimStart);
  const PodId pod = add_pending_pod(rig.cluster, rig.spec(kVeryLarge, kHigh), kSimStart, "pod1");
  rig.sim.run_until(at(seconds(1)));
  rig.pass();
  CHECK(rig.bus.preempted == std::vector<PodId>{m11, m12});
  CHECK(rig.bus.terminating == std::vector<PodId>{m11, m12});
  CHECK(rig.cluster.pod(m11).preempted);
  CHECK(rig.cluster.pod(m11).terminating);
  CHECK(rig.cluster.pod(pod).nominated_node_name == rig.nodes[0]);
  CHECK(rig.unschedulable.empty());  // a preempting pod is no provisioner's business
  const auto events = rig.bus.of_kind(EventKind::PodPreempted);
  REQUIRE(events.size() == 2);
  CHECK(events[0].message == "pod1");
  CHECK(events[0].node == rig.nodes[0]);

  // Still terminating: the pod is tried again, waits (not eligible to preempt again) and stays
  // quiet.
  rig.sim.run_until(at(seconds(5)));
  rig.scheduler.cluster_changed();
  rig.sim.run_until(at(seconds(5)));
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Pending);
  CHECK(rig.bus.preempted.size() == 2);
  CHECK(rig.unschedulable.empty());

  rig.sim.run_until(at(seconds(31)));
  rig.victim_gone(m11);
  rig.victim_gone(m12);
  rig.sim.run_until(at(seconds(60)));
  CHECK(rig.cluster.pod(pod).node == rig.nodes[0]);
  CHECK(rig.cluster.pod(pod).nominated_node_name == kNoNode);
}

// TestPreempt "One node doesn't need any preemption": it simply binds there.
TEST_CASE("no preemption where a node has room", "[kube][preemption]") {
  PreemptionRig rig(3);
  rig.run(1, kSmall, kLow, kSimStart);
  rig.run(1, kSmall, kLow, kSimStart);
  rig.run(2, kLarge, kHigh, kSimStart);
  const PodId pod = add_pending_pod(rig.cluster, rig.spec(kVeryLarge, kHigh), kSimStart);
  rig.pass();
  CHECK(rig.cluster.pod(pod).node == rig.nodes[2]);
  CHECK(rig.bus.preempted.empty());
}

// TestPreempt "preemption for pod with preemptionPolicy Never" (and TestPodEligibleToPreemptOthers
// "Pod with nil preemption policy that is not preemptible"): it waits like any pod, and the
// provisioner hears of it.
TEST_CASE("preemptionPolicy Never never preempts", "[kube][preemption]") {
  PreemptionRig rig(1);
  rig.run(1, kLarge, kLow, kSimStart);
  const PodId first = add_pending_pod(rig.cluster, rig.spec(kSmall, kLow), kSimStart);
  rig.pass();
  REQUIRE(rig.cluster.pod(first).node == rig.nodes[0]);
  const PodId pod =
      add_pending_pod(rig.cluster, rig.spec(kLarge, kHigh, PreemptionPolicy::Never), kSimStart);
  rig.pass();
  CHECK(rig.bus.preempted.empty());
  CHECK(rig.cluster.pod(pod).nominated_node_name == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{pod});
}

// RunFilterPluginsWithNominatedPods: while the preemptor waits, the room its victims leave is
// kept for it; a lower-priority pod does not take it.
TEST_CASE("a lower-priority pod does not take the room kept for a preemptor",
          "[kube][preemption]") {
  PreemptionRig rig(1);
  const PodId victim = rig.run(1, kVeryLarge, kNeg, kSimStart);
  const PodId pod = add_pending_pod(rig.cluster, rig.spec(kLarge, kHigh), kSimStart, "pod");
  rig.pass();
  REQUIRE(rig.bus.preempted == std::vector<PodId>{victim});
  const PodId low = add_pending_pod(rig.cluster, rig.spec(kLarge, kLow), kSimStart, "low");
  rig.victim_gone(victim);
  rig.pass();
  CHECK(rig.cluster.pod(low).phase == PodPhase::Pending);
  rig.sim.run_until(at(seconds(10)));
  CHECK(rig.cluster.pod(pod).node == rig.nodes[0]);
  CHECK(rig.cluster.pod(low).phase == PodPhase::Pending);
}

// TestPreempt "no preempting in pod" / equal priorities: nothing to preempt, so the provisioner
// is told and no pod is touched.
TEST_CASE("pods of one priority never preempt each other", "[kube][preemption]") {
  PreemptionRig rig(1);
  const PodId a = add_pending_pod(rig.cluster, rig.spec(kLarge, kMid), kSimStart);
  rig.pass();
  REQUIRE(rig.cluster.pod(a).node == rig.nodes[0]);
  const PodId b = add_pending_pod(rig.cluster, rig.spec(kLarge, kMid), kSimStart);
  rig.pass();
  CHECK(rig.bus.preempted.empty());
  CHECK(rig.unschedulable == std::vector<PodId>{b});
}
