// Drift, translated from Karpenter's core:pkg/controllers/disruption/drift_test.go and
// nodeclaim/disruption/drift_test.go (the upstream case is named per test). Polls run every 10 s
// from t = 10 s; drift commands are not validated, so they start at the poll that finds them.
#include "fleetsim/disruption/drift.hpp"

#include <catch2/catch.hpp>

#include "disruption_rig.hpp"

using namespace fleetsim;
using Lines = std::vector<std::string>;

namespace {

NodePool m5_pool() {
  NodePool p = test::make_pool("default");
  p.requirements.add(std::string(label::kInstanceFamily), test::in({"m5"}));
  p.requirements.add(std::string(label::kCapacityType), test::in({"on-demand"}));
  p.expire_after = std::nullopt;
  p.disruption.consolidate_after = std::nullopt;  // consolidation off: only drift acts
  return p;
}

PodSpec cpu_pod(std::int64_t millis) { return test::make_pod({.cpu_millis = millis}); }

}  // namespace

TEST_CASE("should disrupt all empty drifted nodes / should replace drifted nodes",
          "[disruption][drift]") {
  test::DisruptionRig rig(test::small_catalog(), {m5_pool()});
  const NodeId busy = rig.launch("node-a", "m5.xlarge");
  rig.bind(busy, cpu_pod(1500));
  rig.launch("node-b", "m5.xlarge");  // empty
  rig.controller.start();
  rig.sim.run_until(at(seconds(15)));
  CHECK(rig.bus.decisions.empty());

  // A template label changes the NodePool's hash: both nodes drift. The empty one goes first, with
  // no replacement; the other is replaced by the cheapest m5 that holds its pod. Drift has no
  // validation wait and the loop runs again at once after a command starts, but the default
  // budget (10% of 2: 1) is used up by node-b until its instance is terminating (Drained after
  // MinDrainTime, at 25 s); the pass at 30 s starts node-a's replace, deleted once its
  // replacement is up a second later.
  NodePool changed = m5_pool();
  changed.labels["team"] = "ml";
  rig.provisioner.apply_nodepools({changed});
  rig.sim.run_until(at(seconds(40)));
  CHECK(rig.bus.decisions ==
        Lines{"20s drift [node-b] -> []", "30s drift [node-a] -> [m5.large m5.xlarge m5.2xlarge]"});
  CHECK(rig.bus.lines == Lines{"20s node-b drifted", "31s node-a drifted"});
  const Node& replacement = rig.cluster.nodes().back();
  CHECK(replacement.instance_type == "m5.large");
  CHECK_FALSE(Drift::drifted(replacement, rig.provisioner.launcher().claims().at(replacement.id),
                             rig.provisioner.nodepools()[0], 0));
}

TEST_CASE(
    "should detect drift when the node's labels no longer satisfy the requirements, and "
    "not when they still do",
    "[disruption][drift]") {
  const bool still_satisfied = GENERATE(true, false);
  test::DisruptionRig rig(test::small_catalog(), {m5_pool()});
  rig.bind(rig.launch("node-a", "m5.xlarge"), cpu_pod(500));
  rig.controller.start();
  NodePool changed = m5_pool();
  changed.requirements = Requirements{};
  changed.requirements.add(std::string(label::kCapacityType), test::in({"on-demand"}));
  changed.requirements.add(std::string(label::kInstanceFamily),
                           still_satisfied ? test::in({"m5", "c5"}) : test::in({"c5"}));
  rig.provisioner.apply_nodepools({changed});
  rig.sim.run_until(at(minutes(2)));
  if (still_satisfied) {
    CHECK(rig.bus.decisions.empty());
  } else {
    CHECK(rig.bus.decisions == Lines{"10s drift [node-a] -> [c5.large]"});
  }
}

// drift_test.go "should delete drifted nodes when they are empty and consolidation is disabled",
// with three such nodes and a Drifted budget of 100%: no validation wait and a rerun at once after
// each command, so the three start in one instant.
TEST_CASE("empty drifted nodes within budget all start in one instant", "[disruption][drift]") {
  NodePool p = m5_pool();
  p.disruption.budgets = {
      DisruptionBudget{.percent = true, .nodes = 100, .reasons = {DisruptionReason::Drifted}}};
  test::DisruptionRig rig(test::small_catalog(), {p});
  rig.launch("node-a", "m5.large");
  rig.launch("node-b", "m5.large");
  rig.launch("node-c", "m5.large");
  rig.controller.start();
  rig.sim.run_until(at(seconds(15)));
  NodePool changed = p;
  changed.labels["team"] = "ml";
  rig.provisioner.apply_nodepools({changed});
  rig.sim.run_until(at(seconds(40)));
  CHECK(rig.bus.lines == Lines{"20s node-a drifted", "20s node-b drifted", "20s node-c drifted"});
}

TEST_CASE("drift respects a zero Drifted budget while emptiness goes on", "[disruption][drift]") {
  NodePool p = m5_pool();
  p.disruption.consolidate_after = seconds(0);
  p.disruption.budgets = {
      DisruptionBudget{.percent = false, .nodes = 0, .reasons = {DisruptionReason::Drifted}}};
  test::DisruptionRig rig(test::small_catalog(), {p});
  rig.bind(rig.launch("node-a", "m5.large"), cpu_pod(500));
  rig.launch("node-b", "m5.large");
  NodePool changed = p;
  changed.labels["team"] = "ml";
  rig.provisioner.apply_nodepools({changed});
  rig.controller.start();
  rig.sim.run_until(at(minutes(2)));
  CHECK(rig.bus.decisions == Lines{"25s emptiness [node-b] -> []"});
}

TEST_CASE("a changed EC2NodeClass drifts its pool's nodes, the same spec applied again does not",
          "[disruption][drift]") {
  NodePool p = m5_pool();
  p.node_class = "default";
  test::DisruptionRig rig(test::small_catalog(), {p});
  rig.provisioner.apply_node_classes({EC2NodeClass{.name = "default", .spec_hash = 7}});
  rig.launch("node-a", "m5.large");  // launched with the class at hash 7
  rig.controller.start();
  const std::uint64_t hash = GENERATE(std::uint64_t{7}, std::uint64_t{8});
  rig.provisioner.apply_node_classes({EC2NodeClass{.name = "default", .spec_hash = hash}});
  rig.sim.run_until(at(minutes(1)));
  if (hash == 7) {
    CHECK(rig.bus.decisions.empty());
  } else {
    CHECK(rig.bus.decisions == Lines{"10s drift [node-a] -> []"});
  }
}

TEST_CASE("drift ignores pod blockers when the NodePool has a terminationGracePeriod",
          "[disruption][drift][pdb]") {
  NodePool p = m5_pool();
  const bool tgp = GENERATE(false, true);
  if (tgp) p.termination_grace_period = minutes(10);
  test::DisruptionRig rig(
      test::small_catalog(), {p}, {},
      {PodDisruptionBudgetSpec{
          .name = "all", .max_unavailable = IntOrPercent{0}, .selector = LabelSelector{}}});
  rig.cluster.pod_ready(rig.bind(rig.launch("node-a", "m5.large"), cpu_pod(500)), rig.sim.now());
  rig.controller.start();
  NodePool changed = p;
  changed.labels["team"] = "ml";
  rig.provisioner.apply_nodepools({changed});
  rig.sim.run_until(at(seconds(15)));
  if (tgp) {
    CHECK(rig.bus.decisions == Lines{"10s drift [node-a] -> [m5.large m5.xlarge m5.2xlarge]"});
  } else {
    CHECK(rig.bus.decisions.empty());
  }
}
