// `karpenter.version`: where Karpenter's disruption changed between v1.0 and v1.14, the release
// selects the behaviour (the tag and upstream change are named per test). Polls run every 10 s
// from t = 10 s; a validated command starts 15 s after it is computed.
#include <catch2/catch.hpp>

#include "disruption_rig.hpp"

using namespace fleetsim;
using Lines = std::vector<std::string>;

namespace {

KarpenterVersion v(int minor) { return KarpenterVersion{.minor = minor}; }

NodePool m5_pool(ConsolidationPolicy policy = ConsolidationPolicy::WhenEmptyOrUnderutilized) {
  NodePool p = test::make_pool("default");
  p.requirements.add(std::string(label::kInstanceFamily), test::in({"m5", "c5"}));
  p.requirements.add(std::string(label::kCapacityType), test::in({"on-demand"}));
  p.expire_after = std::nullopt;
  p.disruption.policy = policy;
  p.disruption.consolidate_after = seconds(0);
  p.disruption.budgets = {DisruptionBudget{.percent = true, .nodes = 100}};
  return p;
}

PodSpec cpu_pod(std::int64_t millis) { return test::make_pod({.cpu_millis = millis}); }

}  // namespace

// karpenter v1.13.0 consolidation_test.go "should consider node lifetime remaining when
// calculating disruption cost": the older node holds two pods but has less of its expireAfter
// left, so its disruption cost (Σ eviction costs × lifetime remaining) is the lower and it goes
// first. v1.14 (#2962) orders by savings ratio instead: the node with fewer pods goes.
TEST_CASE("candidate order: disruption cost with lifetime before v1.14, savings ratio from it",
          "[disruption][version]") {
  const int minor = GENERATE(13, 14);
  NodePool pool = m5_pool();
  pool.requirements.add(std::string(label::kInstanceType), test::in({"m5.large"}));
  pool.expire_after = minutes(100);
  test::DisruptionRig rig(test::small_catalog(), {pool}, {.version = v(minor)});
  const NodeId a = rig.launch("node-a", "m5.large");
  rig.bind(a, cpu_pod(400));
  rig.bind(a, cpu_pod(400));
  rig.controller.start();
  // Alone, node-a has nowhere to go. node-b comes 80 minutes later with one pod: then node-a has
  // 20% of its life left (cost 2 × 0.2 = 0.4) and node-b 100% (cost 1).
  rig.sim.run_until(at(minutes(80) + seconds(5)));
  REQUIRE(rig.bus.decisions.empty());
  rig.bind(rig.launch("node-b", "m5.large"), cpu_pod(400));
  rig.sim.run_until(at(minutes(80) + seconds(30)));
  const std::string gone = minor == 13 ? "node-a" : "node-b";
  CHECK(rig.bus.decisions == Lines{"4825s single_node_consolidation [" + gone + "] -> []"});
}

// v1.5 (#2180): emptiness runs before drift. Before it, drift runs first and takes every empty
// drifted node within budget in one command, without a validation wait (v1.4.0 drift.go).
TEST_CASE("method order and drift's empty nodes before and from v1.5", "[disruption][version]") {
  const int minor = GENERATE(4, 5);
  test::DisruptionRig rig(test::small_catalog(), {m5_pool()}, {.version = v(minor)});
  rig.launch("node-a", "m5.large");
  rig.launch("node-b", "m5.large");
  NodePool changed = m5_pool();
  changed.labels["team"] = "ml";
  rig.provisioner.apply_nodepools({changed});  // both nodes drift
  rig.controller.start();
  rig.sim.run_until(at(seconds(40)));
  if (minor == 4) {
    CHECK(rig.bus.decisions == Lines{"10s drift [node-a node-b] -> []"});
  } else {
    CHECK(rig.bus.decisions == Lines{"25s emptiness [node-a node-b] -> []"});
  }
}

// v1.5 (#2206): emptiness validation keeps the candidates still empty. Before it, a single change
// drops the command, and the node that stayed empty waits for a later pass.
TEST_CASE("emptiness validation keeps the still-empty subset from v1.5", "[disruption][version]") {
  const int minor = GENERATE(4, 5);
  test::DisruptionRig rig(test::small_catalog(), {m5_pool(ConsolidationPolicy::WhenEmpty)},
                          {.version = v(minor)});
  const NodeId a = rig.launch("node-a", "m5.large");
  rig.launch("node-b", "m5.large");
  rig.controller.start();
  rig.sim.run_until(at(seconds(15)));  // the command [node-a node-b] is computed at 10 s
  rig.bind(a, cpu_pod(400));
  rig.sim.run_until(at(seconds(60)));
  // v1.4: dropped at 25 s; the next pass, 10 s later, computes [node-b] again: it goes at 50 s.
  CHECK(rig.bus.lines == Lines{minor == 4 ? "50s node-b empty" : "25s node-b empty"});
}

// v1.6 (#2305): the queue checks a replace's replacement every second; before, it backed off from
// 1 s doubling to 10 s (v1.5.0 orchestration/queue.go).
TEST_CASE("the queue's replacement checks: back-off before v1.6, every second from it",
          "[disruption][version]") {
  const int minor = GENERATE(5, 6);
  const Catalog catalog = test::small_catalog();
  std::vector<NodeLatency> latencies(catalog.types().size(), test::kNoLatency);
  latencies[*catalog.index_of("c5.large")].initialization = millis(5500);
  test::DisruptionRig rig(catalog, {m5_pool()}, {.version = v(minor)}, {}, latencies);
  rig.bind(rig.launch("node-a", "m5.2xlarge"), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(40)));
  REQUIRE(rig.bus.decisions ==
          Lines{"25s single_node_consolidation [node-a] -> [c5.large m5.large m5.xlarge]"});
  // The replacement is initialized at 30.5 s. Every second: the look at 31 s sees it. Back-off:
  // looks at 26, 28 and 32 s.
  CHECK(rig.bus.lines ==
        Lines{minor == 5 ? "32s node-a underutilized" : "31s node-a underutilized"});
}
