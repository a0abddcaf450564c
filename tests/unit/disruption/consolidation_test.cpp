// Consolidation of underutilized nodes, translated from Karpenter's
// core:pkg/controllers/disruption/consolidation_test.go (the upstream case is named per test).
// Polls run every 10 s from t = 10 s; a command computed at 10 s is validated and started at
// 25 s; a replacement starts at once (zero start-up latency) and the candidates are deleted when
// the queue sees it initialized, 1 s later.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "disruption_rig.hpp"
#include "fleetsim/disruption/balanced.hpp"
#include "fleetsim/provisioning/capacity_buffers.hpp"

using namespace fleetsim;
using Lines = std::vector<std::string>;

namespace {

NodePool pool(std::vector<std::string> families, std::vector<std::string> capacity_types,
              ConsolidationPolicy policy = ConsolidationPolicy::WhenEmptyOrUnderutilized) {
  NodePool p = test::make_pool("default");
  p.requirements.add(std::string(label::kInstanceFamily), test::in(std::move(families)));
  p.requirements.add(std::string(label::kCapacityType), test::in(std::move(capacity_types)));
  p.disruption.policy = policy;
  p.expire_after = std::nullopt;
  p.disruption.budgets = {DisruptionBudget{.percent = true, .nodes = 100}};
  return p;
}

PodSpec cpu_pod(std::int64_t millis) { return test::make_pod({.cpu_millis = millis}); }

// Two types of one family: `big` at $1/h on demand and `small` at `small_price`.
Catalog two_sizes(double small_price) {
  return Catalog(
      {test::make_type({.name = "x1.big", .vcpu = 8, .memory_gib = 32, .on_demand = 1.0}),
       test::make_type(
           {.name = "x1.small", .vcpu = 4, .memory_gib = 16, .on_demand = small_price})},
      "test");
}

}  // namespace

TEST_CASE("can replace node (on-demand): a cheaper type takes the pod, then the node goes",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5", "c5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.2xlarge");
  rig.bind(a, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(30)));
  // Every type cheaper than $0.384/h that fits, cheapest first.
  CHECK(rig.bus.decisions ==
        Lines{"25s single_node_consolidation [node-a] -> [c5.large m5.large m5.xlarge]"});
  CHECK(rig.bus.savings == std::vector<double>{0.384 - 0.085});
  CHECK(rig.bus.lines == Lines{"26s node-a underutilized"});
  const Node& replacement = rig.cluster.nodes().back();
  CHECK(replacement.instance_type == "c5.large");
}

TEST_CASE("can delete nodes: one of two half-empty nodes goes, its pod fits on the other",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.large");
  NodeId b = rig.launch("node-b", "m5.large");
  rig.bind(a, cpu_pod(500));
  rig.bind(b, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(60)));
  // Multi-node would replace both with one m5.large, which filterOutSameInstanceType forbids;
  // single-node deletes the first by name. The other then holds both pods' worth of work alone.
  CHECK(rig.bus.decisions == Lines{"25s single_node_consolidation [node-a] -> []"});
  CHECK(rig.bus.lines == Lines{"25s node-a underutilized"});
}

// "Buffer Pods": SimulateScheduling takes GetPendingPods, virtual pods included. They may fail
// to fit (they are pending), but a NodeClaim they need makes the deletion a replacement, which
// must be cheaper: here none is, so the buffer's room keeps both nodes (without the buffer,
// "can delete nodes" above deletes node-a).
namespace {

// Two m5.large with a 500m pod each, and a buffer of `replicas` 700m virtual pods.
Lines consolidations_with_buffer(std::int32_t replicas) {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.large");
  NodeId b = rig.launch("node-b", "m5.large");
  rig.bind(a, cpu_pod(500));
  rig.bind(b, cpu_pod(500));
  WorkloadController workloads(rig.sim, rig.cluster, rig.bus);
  Workload web{.kind = WorkloadKind::Deployment, .name = "web", .replicas = 0};
  web.pod.spec = cpu_pod(700);
  workloads.add(web, rig.sim.now());
  CapacityBufferController buffers(
      rig.sim, workloads,
      {CapacityBuffer{
          .name = "spare",
          .scalable_ref = CapacityBuffer::ScalableRef{.kind = "Deployment", .name = "web"},
          .replicas = replicas}},
      {});
  buffers.reconcile(rig.sim.now());
  REQUIRE(buffers.virtual_pods().size() == static_cast<std::size_t>(replicas));
  rig.provisioner.set_capacity_buffers(&buffers);
  rig.controller.start();
  rig.sim.run_until(at(minutes(5)));
  return rig.bus.decisions;
}

}  // namespace

// "Buffer Pods": SimulateScheduling takes GetPendingPods, virtual pods included. They may fail
// to fit (they are pending), but a NodeClaim they need makes the deletion a replacement, which
// must be cheaper. Two 700m virtual pods do not fit beside both real pods on one m5.large, and
// no replacement is cheaper: the buffer's room keeps both nodes. One fits: node-a goes as in
// "can delete nodes" above.
TEST_CASE("a deletion that would leave a CapacityBuffer without room is no consolidation",
          "[disruption][consolidation]") {
  CHECK(consolidations_with_buffer(2).empty());
  CHECK(consolidations_with_buffer(1) == Lines{"25s single_node_consolidation [node-a] -> []"});
}

TEST_CASE("can merge 3 nodes into 1 (multi-node, on-demand)", "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  for (std::string name : {"node-a", "node-b", "node-c"})
    rig.bind(rig.launch(name, "m5.2xlarge"), cpu_pod(1000));
  rig.controller.start();
  rig.sim.run_until(at(seconds(30)));
  // Prefix 2 deletes two nodes onto the third; prefix 3 replaces all three with one m5.xlarge
  // (m5.2xlarge, a candidate's own type, is filtered out): the longest valid prefix wins.
  CHECK(rig.bus.decisions ==
        Lines{"25s multi_node_consolidation [node-a node-b node-c] -> [m5.xlarge]"});
  CHECK(rig.bus.savings == std::vector<double>{3 * 0.384 - 0.192});
  CHECK(rig.bus.lines ==
        Lines{"26s node-a underutilized", "26s node-b underutilized", "26s node-c underutilized"});
}

TEST_CASE("equal price never consolidates (aws#5903), 1/128 cheaper does",
          "[disruption][consolidation]") {
  const double small_price = GENERATE(1.0, 1.0 - 1.0 / 128);
  test::DisruptionRig rig(two_sizes(small_price), {pool({"x1"}, {"on-demand"})});
  rig.bind(rig.launch("node-a", "x1.big"), cpu_pod(500));
  rig.controller.start();
  // Until 30 s: the rig recreates no evicted pod, so emptiness later takes the empty replacement.
  rig.sim.run_until(at(seconds(30)));
  if (small_price == 1.0) {
    CHECK(rig.bus.decisions.empty());
  } else {
    CHECK(rig.bus.decisions == Lines{"25s single_node_consolidation [node-a] -> [x1.small]"});
  }
}

// The simulation keeps its answers while the cluster stays as it was (a poll every 10 s asks the
// same), but not past a price change: both smaller types cost as much as the node at first, and
// from 100 s x1.wide is the cheapest. The pass after the consolidation state's 5-minute reset
// replaces the node with the new order of options (a kept answer would list x1.small first).
TEST_CASE("a price change alone reaches the next consolidation pass",
          "[disruption][consolidation]") {
  Catalog catalog(
      {test::make_type({.name = "x1.big", .vcpu = 8, .memory_gib = 32, .on_demand = 1.0}),
       test::make_type({.name = "x1.small", .vcpu = 4, .memory_gib = 16, .on_demand = 1.0}),
       test::make_type({.name = "x1.wide", .vcpu = 6, .memory_gib = 24, .on_demand = 1.0})},
      "test");
  test::DisruptionRig rig(std::move(catalog), {pool({"x1"}, {"on-demand"})});
  rig.bind(rig.launch("node-a", "x1.big"), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(100)));
  CHECK(rig.bus.decisions.empty());
  for (std::uint32_t g = 0; g < rig.catalog.offering_count(); ++g) {
    const std::string& type = rig.catalog.types()[rig.catalog.type_of_offering(g)].name;
    if (type != "x1.big") rig.cloud.set_price(g, type == "x1.wide" ? 0.9 : 0.95);
  }
  rig.sim.run_until(at(seconds(320)));
  CHECK(rig.bus.decisions ==
        Lines{"315s single_node_consolidation [node-a] -> [x1.wide x1.small]"});
}

TEST_CASE("an on-demand node is replaced by spot when the pool allows both, pinned to spot",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand", "spot"})});
  rig.bind(rig.launch("node-a", "m5.xlarge"), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(30)));
  // Worst-case launch prices are spot prices ($0.04, $0.08, $0.16), all below $0.192.
  CHECK(rig.bus.decisions ==
        Lines{"25s single_node_consolidation [node-a] -> [m5.large m5.xlarge m5.2xlarge]"});
  const Node& replacement = rig.cluster.nodes().back();
  CHECK(replacement.instance_type == "m5.large");
  CHECK(replacement.capacity_type == CapacityType::Spot);
}

TEST_CASE(
    "cannot replace spot with spot if the spotToSpotConsolidation is disabled, nor with "
    "fewer than 15 cheaper types when it is enabled",
    "[disruption][consolidation]") {
  const bool gate = GENERATE(false, true);
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand", "spot"})},
                          {.spot_to_spot = gate});
  rig.bind(rig.launch("node-a", "m5.xlarge", "us-east-1a", CapacityType::Spot), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.decisions.empty());
}

TEST_CASE("spot to spot consolidation launches with the 15 cheapest types",
          "[disruption][consolidation]") {
  // 20 two-vCPU types; type i costs (i + 1) cents spot, on demand ten times that.
  std::vector<InstanceType> types;
  for (int i = 0; i < 20; ++i)
    types.push_back(test::make_type(
        {.name = fmt::format("t1.s{:02}", i), .on_demand = 0.1 * (i + 1), .spot = 0.01 * (i + 1)}));
  test::DisruptionRig rig(Catalog(std::move(types), "test"), {pool({"t1"}, {"spot"})},
                          {.spot_to_spot = true});
  rig.bind(rig.launch("node-a", "t1.s19", "us-east-1a", CapacityType::Spot), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(30)));
  CHECK(rig.bus.decisions ==
        Lines{"25s single_node_consolidation [node-a] -> [t1.s00 t1.s01 t1.s02 t1.s03 t1.s04 "
              "t1.s05 t1.s06 t1.s07 t1.s08 t1.s09 t1.s10 t1.s11 t1.s12 t1.s13 t1.s14]"});
}

TEST_CASE("won't replace node if any spot replacement is more expensive",
          "[disruption][consolidation]") {
  // The current type costs $0.50/h on demand; the replacement type only sells spot, at $1.00,
  // $0.20 and $0.40 in three zones: its worst-case launch price is $1.00.
  InstanceType current =
      test::make_type({.name = "x1.current", .on_demand = 0.5, .zones = {"us-east-1a"}});
  InstanceType replacement = test::make_type(
      {.name = "x1.spot", .spot = 1.0, .zones = {"us-east-1a", "us-east-1b", "us-east-1c"}});
  std::erase_if(replacement.offerings,
                [](const Offering& o) { return o.capacity_type != CapacityType::Spot; });
  replacement.offerings[1].price_per_hour = 0.2;
  replacement.offerings[2].price_per_hour = 0.4;
  test::DisruptionRig rig(Catalog({current, replacement}, "test"),
                          {pool({"x1"}, {"on-demand", "spot"})});
  rig.bind(rig.launch("node-a", "x1.current"), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.bus.decisions.empty());
}

TEST_CASE("WhenEmpty never consolidates an underutilized node, consolidateAfter Never keeps it",
          "[disruption][consolidation]") {
  NodePool p = pool({"m5", "c5"}, {"on-demand"});
  if (GENERATE(false, true)) {
    p.disruption.policy = ConsolidationPolicy::WhenEmpty;
  } else {
    p.disruption.consolidate_after = std::nullopt;
  }
  test::DisruptionRig rig(test::small_catalog(), {p});
  rig.bind(rig.launch("node-a", "m5.2xlarge"), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(hours(1)));
  CHECK(rig.bus.decisions.empty());
}

TEST_CASE("consolidateAfter counts from the node's last pod event", "[disruption][consolidation]") {
  NodePool p = pool({"m5", "c5"}, {"on-demand"});
  p.disruption.consolidate_after = minutes(5);
  test::DisruptionRig rig(test::small_catalog(), {p});
  NodeId a = rig.launch("node-a", "m5.2xlarge");
  rig.controller.start();
  rig.sim.run_until(at(seconds(100)));
  rig.bind(a, cpu_pod(500));  // the last pod event: Consolidatable from 400 s
  rig.sim.run_until(at(seconds(500)));
  CHECK(rig.bus.decisions ==
        Lines{"415s single_node_consolidation [node-a] -> [c5.large m5.large m5.xlarge]"});
}

TEST_CASE("a zero budget for Underutilized blocks consolidation and leaves emptiness working",
          "[disruption][consolidation]") {
  NodePool p = pool({"m5", "c5"}, {"on-demand"});
  p.disruption.budgets = {
      DisruptionBudget{.percent = false, .nodes = 0, .reasons = {DisruptionReason::Underutilized}}};
  test::DisruptionRig rig(test::small_catalog(), {p});
  rig.bind(rig.launch("node-a", "m5.2xlarge"), cpu_pod(500));
  rig.launch("node-b", "m5.large");
  rig.controller.start();
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.decisions == Lines{"25s emptiness [node-b] -> []"});
  CHECK(rig.bus.lines == Lines{"25s node-b empty"});
}

TEST_CASE("Balanced approves a move that saves 60% of a one-node pool and rejects one saving 40%",
          "[disruption][consolidation][balanced]") {
  // One node: its move is all of the pool's disruption, so the savings fraction must reach
  // 1/k = 1/2 (balanced_scoring_test.go's threshold).
  const double small_price = GENERATE(0.4, 0.6);
  test::DisruptionRig rig(two_sizes(small_price),
                          {pool({"x1"}, {"on-demand"}, ConsolidationPolicy::Balanced)});
  rig.bind(rig.launch("node-a", "x1.big"), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(minutes(5)));
  // (The replacement is deleted as empty later: nothing reschedules the rig's evicted pods.)
  if (small_price == 0.4) {
    REQUIRE_FALSE(rig.bus.decisions.empty());
    rig.bus.decisions.resize(1);
    CHECK(rig.bus.decisions == Lines{"25s single_node_consolidation [node-a] -> [x1.small]"});
  } else {
    CHECK(rig.bus.decisions.empty());
  }
}

TEST_CASE("balanced score: savings fraction over disruption fraction against 1/2",
          "[disruption][balanced]") {
  // balanced_scoring_test.go: ScoreMove's guards and threshold.
  CHECK(balanced_approves(0.5, 1, {.cost = 1, .disruption = 1}));
  CHECK_FALSE(balanced_approves(0.49, 1, {.cost = 1, .disruption = 1}));
  CHECK(balanced_approves(0.1, 1, {.cost = 1, .disruption = 10}));  // 0.1 / 0.1 = 1
  CHECK_FALSE(balanced_approves(0, 1, {.cost = 1, .disruption = 1}));
  CHECK_FALSE(balanced_approves(1, 1, {.cost = 0, .disruption = 1}));
  CHECK(balanced_approves(0.01, 0, {.cost = 1, .disruption = 1}));  // no disruption: +∞
}

TEST_CASE("can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.large");
  NodeId b = rig.launch("node-b", "m5.large");
  PodSpec pinned = cpu_pod(500);
  pinned.do_not_disrupt = kForever;
  rig.bind(a, pinned);
  rig.bind(b, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(60)));
  // node-a would go first by name; its pod blocks it, so node-b goes onto node-a.
  CHECK(rig.bus.decisions == Lines{"25s single_node_consolidation [node-b] -> []"});
}

TEST_CASE("won't delete node if it would require pods to schedule on an uninitialized node",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  rig.bind(rig.launch("node-a", "m5.large"), cpu_pod(500));
  // An in-flight NodeClaim with room: the pod could move there, but not before it is initialized.
  const auto t = static_cast<std::uint32_t>(*rig.catalog.index_of("m5.large"));
  rig.cluster.add_node(Node{.name = "node-b",
                            .owner = NodePoolOwner{.pool = 0, .name = "default"},
                            .type = t,
                            .instance_type = "m5.large",
                            .zone = "us-east-1a",
                            .price_per_hour = 0.096,
                            .phase = NodePhase::Registered,
                            .allocatable = rig.catalog.types()[t].allocatable});
  rig.controller.start();
  rig.sim.run_until(at(seconds(60)));
  CHECK(rig.bus.decisions.empty());
}

TEST_CASE(
    "should not consolidate pods onto a destination node that is under its "
    "consolidateAfter window",
    "[disruption][consolidation]") {
  NodePool p = pool({"m5"}, {"on-demand"});
  p.disruption.consolidate_after = minutes(2);
  test::DisruptionRig rig(test::small_catalog(), {p});
  NodeId a = rig.launch("node-a", "m5.large");
  NodeId b = rig.launch("node-b", "m5.large");
  rig.bind(a, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(60)));
  rig.bind(b, cpu_pod(500));  // node-b's last pod event: inside its window until 180 s
  rig.sim.run_until(at(seconds(600)));
  // node-a is Consolidatable from 120 s but its pod may not go to node-b before 180 s: the
  // pass at 120 s finds nothing and marks consolidation done. node-b's window ending changes
  // nothing upstream counts (upstream's test resets the controller here), so consolidation waits
  // for the state's reset, 5 minutes after the bind at 60 s.
  CHECK(rig.bus.decisions == Lines{"375s single_node_consolidation [node-a] -> []"});
}

TEST_CASE("should only allow 3 nodes to be deleted in multi node consolidation delete",
          "[disruption][consolidation]") {
  NodePool p = pool({"m5"}, {"on-demand"});
  p.disruption.budgets = {DisruptionBudget{.percent = false, .nodes = 3}};
  test::DisruptionRig rig(test::small_catalog(), {p});
  // Ten half-empty nodes: any three can go onto the others.
  for (int i = 0; i < 10; ++i)
    rig.bind(rig.launch(fmt::format("node-{}", i), "m5.xlarge"), cpu_pod(1000));
  rig.controller.start();
  rig.sim.run_until(at(seconds(25)));
  REQUIRE(rig.bus.decisions.size() == 1);
  CHECK(rig.bus.decisions[0] == "25s multi_node_consolidation [node-0 node-1 node-2] -> []");
}

TEST_CASE("should not consolidate if the action becomes invalid during the node TTL wait",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5", "c5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.2xlarge");
  rig.bind(a, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(15)));  // the command was computed at 10 s
  rig.bind(a, cpu_pod(3000));          // a pod event: node-a is no longer Consolidatable now...
  rig.sim.run_until(at(seconds(25)));
  // ...and with 3.5 CPUs the cheaper types do not fit anyway: the command is dropped.
  CHECK(rig.bus.decisions.empty());
  CHECK(rig.cluster.node(a).is_live());
}

TEST_CASE("single-node consolidation takes candidates round-robin across NodePools",
          "[disruption][consolidation]") {
  NodePool a = pool({"m5"}, {"on-demand"});
  a.name = "a";
  NodePool b = pool({"c5"}, {"on-demand"});
  b.name = "b";
  test::DisruptionRig rig(test::small_catalog(), {a, b});
  rig.bind(rig.launch("a-1", "m5.2xlarge", "us-east-1a", CapacityType::OnDemand, 0),
           cpu_pod(7500));  // nothing cheaper holds it, nor a-2
  rig.bind(rig.launch("a-2", "m5.2xlarge", "us-east-1a", CapacityType::OnDemand, 0), cpu_pod(500));
  rig.bind(rig.launch("b-1", "c5.large", "us-east-1a", CapacityType::OnDemand, 1), cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(25)));
  // By savings ratio alone a-2 would come second and be replaced; round-robin tries a-1, then
  // pool b's b-1, whose pod fits on a-2.
  CHECK(rig.bus.decisions == Lines{"25s single_node_consolidation [b-1] -> []"});
}

TEST_CASE(
    "does not consolidate nodes with pods that have a duration-based do-not-disrupt "
    "annotation that is still active, and can after it expires",
    "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5", "c5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.2xlarge");
  PodSpec pinned = cpu_pod(500);
  pinned.do_not_disrupt = minutes(5);  // "5m": protected until 300 s after it started
  rig.bind(a, pinned);
  rig.controller.start();
  rig.sim.run_until(at(seconds(320)));  // before emptiness takes the (podless) replacement
  // The protection ends at 300 s. Until then node-a was no candidate, so no pass computed or
  // marked anything (upstream computes only with candidates): the pass at 300 s finds the
  // command, started after its 15 s validation.
  CHECK(rig.bus.decisions ==
        Lines{"315s single_node_consolidation [node-a] -> [c5.large m5.large m5.xlarge]"});
}

// controller.go disrupt returns before ComputeCommands when a method has no candidates, so the
// IsConsolidated read (ConsolidationState, which a read past 5 minutes resets) waits for one.
// A pass that skips a consolidated method's candidates must not read it early either.
TEST_CASE("the consolidation state is read only by a pass with candidates",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5", "c5"}, {"on-demand"})});
  NodeId a = rig.launch("node-a", "m5.2xlarge");
  PodSpec pinned = cpu_pod(500);
  pinned.do_not_disrupt = minutes(8);  // node-a is no candidate until 480 s
  rig.bind(a, pinned);                 // the state: t = 0
  rig.controller.start();
  rig.sim.run_until(at(seconds(470)));
  // No pass had a candidate, so none read the state: its reset is still to come.
  CHECK_FALSE(rig.cluster.peek_consolidation_state(rig.sim.now()).has_value());
  rig.sim.run_until(at(seconds(490)));
  // The pass at 480 s read it (resetting it there) and found the replacement.
  CHECK(rig.cluster.peek_consolidation_state(rig.sim.now()) == at(seconds(480)));
  rig.sim.run_until(at(seconds(500)));
  CHECK(rig.bus.decisions ==
        Lines{"495s single_node_consolidation [node-a] -> [c5.large m5.large m5.xlarge]"});
}

TEST_CASE("can delete nodes, considers karpenter.sh/do-not-disrupt set to true on nodes",
          "[disruption][consolidation]") {
  NodePool p = pool({"m5"}, {"on-demand"});
  p.annotations[std::string(kDoNotDisruptAnnotation)] = "true";
  test::DisruptionRig rig(test::small_catalog(), {p});
  rig.bind(rig.launch("node-a", "m5.large"), cpu_pod(500));
  rig.launch("node-b", "m5.large");  // empty, but annotated too
  rig.controller.start();
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.decisions.empty());
}

TEST_CASE(
    "can delete nodes, considers PDB: a PDB that allows no eviction blocks its pods' node, "
    "even with a terminationGracePeriod",
    "[disruption][consolidation][pdb]") {
  NodePool p = pool({"m5"}, {"on-demand"});
  if (GENERATE(false, true)) p.termination_grace_period = minutes(5);
  // minAvailable 2 over both pods: neither may be evicted.
  test::DisruptionRig rig(
      test::small_catalog(), {p}, {},
      {PodDisruptionBudgetSpec{
          .name = "all", .min_available = IntOrPercent{2}, .selector = LabelSelector{}}});
  NodeId a = rig.launch("node-a", "m5.large");
  NodeId b = rig.launch("node-b", "m5.large");
  rig.cluster.pod_ready(rig.bind(a, cpu_pod(500)), rig.sim.now());
  rig.cluster.pod_ready(rig.bind(b, cpu_pod(500)), rig.sim.now());
  rig.controller.start();
  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.bus.decisions.empty());
}

// consolidation_test.go DescribeTable "should continue to single nodeclaim consolidation when
// multi-nodeclaim consolidation fails validation after the node ttl": three nodes with a pod
// each; during multi-node consolidation's 15 s wait two more pods bind to the first two nodes,
// so its command fails validation and hands over to single-node consolidation in the same pass,
// which waits its own 15 s and deletes the third node.
TEST_CASE("a command that fails validation hands over to the next method",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  const NodeId a = rig.launch("node-a", "m5.large");
  const NodeId b = rig.launch("node-b", "m5.large");
  const NodeId c = rig.launch("node-c", "m5.large");
  for (NodeId n : {a, b, c}) rig.bind(n, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(10)));  // the first pass computes multi-node's command
  rig.bind(a, cpu_pod(700));           // node-c's room no longer holds a's and b's pods
  rig.bind(b, cpu_pod(700));
  rig.sim.run_until(at(seconds(60)));
  CHECK(rig.bus.decisions == Lines{"40s single_node_consolidation [node-c] -> []"});
}

// queue.go StartCommand records the command's results: the nodes its simulation placed pods on
// are nominated (state/statenode.go Nominate, 20 s) and are no candidates meanwhile
// (disruption/suite_test.go "should not consider candidates that are nominated").
TEST_CASE("the nodes a command moves pods onto are no candidates for 20 s",
          "[disruption][consolidation]") {
  test::DisruptionRig rig(test::small_catalog(), {pool({"m5"}, {"on-demand"})});
  const NodeId a = rig.launch("node-a", "m5.large");
  const NodeId b = rig.launch("node-b", "m5.large");
  const NodeId c = rig.launch("node-c", "m5.large");
  for (NodeId n : {a, b, c}) rig.bind(n, cpu_pod(500));
  rig.controller.start();
  rig.sim.run_until(at(seconds(30)));
  // Multi-node consolidation moves both pods onto node-c: it is nominated from the start, 25 s,
  // for 20 s.
  CHECK(rig.bus.decisions == Lines{"25s multi_node_consolidation [node-a node-b] -> []"});
  CHECK(rig.provisioner.launcher().claims().at(c).nominated_until == at(seconds(45)));
}
