// The disruption controller on a small simulated cluster: emptiness after consolidateAfter plus
// the 15 s validation, nomination, budgets per pass, and expiration.
#include "fleetsim/disruption/disruption_controller.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "disruption_rig.hpp"

using namespace fleetsim;

namespace {

// One on-demand type in two zones; zone b costs twice as much, so emptiness order can be seen.
Catalog one_type_catalog() {
  InstanceType t = test::make_type(
      {.name = "m5.large", .on_demand = 0.1, .zones = {"us-east-1a", "us-east-1b"}});
  REQUIRE(t.offerings.size() == 2);
  t.offerings[1].price_per_hour = 0.2;
  return Catalog({std::move(t)}, "test");
}

// A cluster with one NodePool of one type and its disruption controller, polling from t = 0.
struct Rig : test::DisruptionRig {
  explicit Rig(NodePool pool) : DisruptionRig(one_type_catalog(), {std::move(pool)}) {}
  NodeId launch(std::string name, std::string_view zone = "us-east-1a") {
    return DisruptionRig::launch(std::move(name), "m5.large", zone);
  }
  std::vector<std::string> deletions() const { return bus.lines; }
};

NodePool pool_consolidating_after(std::optional<SimDuration> after) {
  NodePool p = test::make_pool("default");
  p.disruption.consolidate_after = after;
  p.expire_after = std::nullopt;
  return p;
}

}  // namespace

TEST_CASE("an empty node is deleted at the first poll past consolidateAfter plus 15 s validation",
          "[disruption]") {
  Rig rig(pool_consolidating_after(seconds(30)));
  NodeId id = rig.launch("node-a");
  REQUIRE(rig.cluster.node(id).last_pod_event == kSimStart);
  rig.controller.start();

  // Polls run at t = 10, 20, 30 s…; at 30 s the node has been empty for 30 s, so the command is
  // computed then and executed after the 15 s validation delay.
  rig.sim.run_until(at(seconds(44)));
  CHECK(rig.cluster.node(id).phase == NodePhase::Initialized);
  rig.sim.run_until(at(seconds(45)));
  const Node& n = rig.cluster.node(id);
  CHECK_FALSE(n.is_live());
  CHECK(n.deleting_at == at(seconds(45)));
  CHECK(n.termination_reason == NodeDeletionReason::Empty);
  CHECK(rig.deletions() == std::vector<std::string>{"45s node-a empty"});
}

TEST_CASE("a nominated node is not an emptiness candidate until its nomination ends",
          "[disruption]") {
  Rig rig(pool_consolidating_after(seconds(30)));
  NodeId id = rig.launch("node-a");
  rig.provisioner.launcher().claims().hold_nominated(id, at(seconds(50)));
  rig.controller.start();

  // The polls at 30 and 40 s skip it; the poll at 50 s takes it; validation ends at 65 s.
  rig.sim.run_until(at(seconds(64)));
  CHECK(rig.cluster.node(id).phase == NodePhase::Initialized);
  rig.sim.run_until(at(seconds(65)));
  CHECK(rig.cluster.node(id).deleting_at == at(seconds(65)));
  CHECK(rig.deletions() == std::vector<std::string>{"65s node-a empty"});
}

TEST_CASE("a node nominated during validation survives it and waits for a later pass",
          "[disruption]") {
  Rig rig(pool_consolidating_after(seconds(30)));
  NodeId id = rig.launch("node-a");
  rig.controller.start();
  rig.sim.run_until(at(seconds(30)));  // the command is computed at 30 s
  // Karpenter plans a pod onto it at 40 s: the re-check at 45 s finds it nominated.
  rig.sim.run_until(at(seconds(40)));
  rig.provisioner.launcher().claims().hold_nominated(id, at(seconds(60)));
  rig.sim.run_until(at(seconds(89)));
  // The failed validation hands over to the other methods at 45 s, which find nothing: polls at
  // 55 s (still nominated) and 65 s, whose command is started after its wait, at 80 s (the
  // timeline in karpenter's controller.go: a pass with nothing to do polls 10 s later).
  CHECK(rig.deletions() == std::vector<std::string>{"80s node-a empty"});
}

TEST_CASE("consolidateAfter Never keeps empty nodes", "[disruption]") {
  Rig rig(pool_consolidating_after(std::nullopt));
  rig.launch("node-a");
  rig.controller.start();
  rig.sim.run_until(at(hours(2)));
  CHECK(rig.deletions().empty());
}

TEST_CASE("each emptiness pass deletes at most the budget, most expensive first", "[disruption]") {
  Rig rig(pool_consolidating_after(seconds(30)));
  rig.launch("node-a", "us-east-1a");  // $0.10/h
  rig.launch("node-b", "us-east-1b");  // $0.20/h
  rig.launch("node-c", "us-east-1a");  // $0.10/h
  rig.controller.start();
  rig.sim.run_until(at(seconds(120)));
  // The default budget is 10% of the pool's nodes rounded up: 1 per pass. The pass at 30 s finds
  // a command and waits its validation inside the loop; the command starts at 45 s and the loop
  // runs again at once, but node-b is disrupting until its instance is terminating: Drained
  // after MinDrainTime (5 s), at 50 s. So the pass at 55 s finds a budget of 1 again (10% of 2)
  // and its command starts after validation at 70 s; likewise the third at 95 s (notes §1.11 C).
  // The dearest node goes first, then ties by name.
  CHECK(rig.deletions() ==
        std::vector<std::string>{"45s node-b empty", "70s node-a empty", "95s node-c empty"});
}

// karpenter nodeclaim/expiration suite_test.go "should return the requeue interval for the time
// between now and when the nodeClaim expires": the claim is deleted exactly at creation +
// expireAfter, by its own timer, not at the disruption loop's next poll.
TEST_CASE("expireAfter deletes a node exactly an hour after its creation", "[disruption]") {
  NodePool pool = pool_consolidating_after(std::nullopt);
  pool.expire_after = hours(1);
  Rig rig(std::move(pool));
  rig.controller.start();
  rig.sim.run_until(at(seconds(5)));
  NodeId id = rig.launch("node-a");
  REQUIRE(rig.cluster.node(id).created == at(seconds(5)));

  // Expiry is due at 3605 s, between two of the loop's polls (3600 and 3610 s).
  rig.sim.run_until(at(seconds(3605)) - millis(1));
  CHECK(rig.cluster.node(id).is_live());
  rig.sim.run_until(at(seconds(3605)));
  CHECK(rig.cluster.node(id).deleting_at == at(seconds(3605)));
  CHECK(rig.cluster.node(id).termination_reason == NodeDeletionReason::Expired);
  CHECK(rig.deletions() == std::vector<std::string>{"3605s node-a expired"});
}

// emptiness_test.go "Buffer pod protection": a node the last provisioning solve placed
// CapacityBuffer virtual pods on is not empty (HasBufferPods); only that node is protected, and
// it is deleted once its count is cleared (to zero or absent).
TEST_CASE("emptiness leaves a node hosting virtual buffer pods and only that node",
          "[disruption]") {
  Rig rig(pool_consolidating_after(seconds(30)));
  const NodeId a = rig.launch("node-a");
  const NodeId b = rig.launch("node-b");
  std::vector<NodeId> changed;
  std::vector<std::int32_t> counts(std::max(a, b) + 1, 0);
  counts[a] = 3;
  rig.provisioner.launcher().claims().set_buffer_pods(counts, changed);
  CHECK(changed == std::vector<NodeId>{a});
  rig.controller.start();
  rig.sim.run_until(at(seconds(60)));
  CHECK(rig.deletions() == std::vector<std::string>{"45s node-b empty"});
  CHECK(rig.cluster.node(a).is_live());

  // The buffer's room was taken (or the buffer deleted): UpdateBufferPodCounts({}).
  changed.clear();
  rig.provisioner.launcher().claims().set_buffer_pods({}, changed);
  CHECK(changed == std::vector<NodeId>{a});
  // Passes at 45, 55 and 65 s: the one at 65 s takes it, its validation ends at 80 s.
  rig.sim.run_until(at(seconds(90)));
  CHECK(rig.deletions() == std::vector<std::string>{"45s node-b empty", "80s node-a empty"});
}

TEST_CASE("emptiness protects every node hosting buffer pods but none with a count of zero",
          "[disruption]") {
  Rig rig(pool_consolidating_after(seconds(30)));
  const NodeId a = rig.launch("node-a");
  const NodeId b = rig.launch("node-b");
  std::vector<NodeId> changed;
  std::vector<std::int32_t> counts(std::max(a, b) + 1, 0);
  counts[a] = 2;
  counts[b] = 3;
  rig.provisioner.launcher().claims().set_buffer_pods(counts, changed);
  rig.controller.start();
  rig.sim.run_until(at(hours(1)));
  CHECK(rig.deletions().empty());
  counts[a] = 0;
  counts[b] = 0;
  changed.clear();
  rig.provisioner.launcher().claims().set_buffer_pods(counts, changed);
  CHECK(changed == std::vector<NodeId>{a, b});
  // The default budget (10% of two nodes, rounded up) takes one node a pass.
  rig.sim.run_until(at(hours(1) + minutes(2)));
  CHECK(rig.deletions().size() == 2);
}
