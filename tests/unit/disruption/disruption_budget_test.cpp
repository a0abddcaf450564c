// NodePool disruption budgets: percent or count, reasons, cron schedules, and nodes already being
// disrupted (karpenter.md §2.6).
#include "fleetsim/disruption/disruption_budget.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace fleetsim;

namespace {

// Monday 2024-01-01T00:00Z: the calendar time of simulated t = 0 in these tests.
constexpr std::int64_t kStartUnixSeconds = 1'704'067'200;
constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();

DisruptionBudget percent(int p) { return DisruptionBudget{.percent = true, .nodes = p}; }
DisruptionBudget count(int n) { return DisruptionBudget{.percent = false, .nodes = n}; }

NodePool pool_with(std::vector<DisruptionBudget> budgets) {
  NodePool p;
  p.name = "default";
  p.disruption.budgets = std::move(budgets);
  return p;
}

void add_nodes(Cluster& cluster, int n, NodePhase phase = NodePhase::Initialized,
               std::uint32_t pool = 0) {
  for (int i = 0; i < n; ++i) {
    Node node;
    node.name = "node-" + std::to_string(cluster.nodes().size());
    node.owner = NodePoolOwner{.pool = pool, .name = "pool-" + std::to_string(pool)};
    node.phase = phase;
    // A node that reached Initialized keeps the flag while it is deleted and terminated.
    node.initialized = phase != NodePhase::Launching && phase != NodePhase::Launched &&
                       phase != NodePhase::Registered;
    NodeId id = cluster.add_node(std::move(node));
    // A terminated node leaves the cluster's active set, as the cloud provider terminates it.
    if (phase == NodePhase::Terminated) cluster.node_terminated(id, kSimStart);
  }
}

Cluster cluster_of(int initialized_nodes) {
  Cluster c;
  add_nodes(c, initialized_nodes);
  return c;
}

std::int64_t allowed(const NodePool& pool, const Cluster& cluster, SimTime now = kSimStart,
                     DisruptionReason reason = DisruptionReason::Empty) {
  return allowed_disruptions(pool, 0, cluster, reason, now, kStartUnixSeconds);
}

}  // namespace

TEST_CASE("the default budget allows 10% of nodes, rounded up", "[disruption]") {
  // NodePool's default budgets are [{nodes: "10%"}]; 10% of 5 is 0.5, rounded up to 1.
  NodePool pool;
  REQUIRE(pool.disruption.budgets.size() == 1);
  CHECK(allowed(pool, cluster_of(5)) == 1);
  CHECK(allowed(pool, cluster_of(10)) == 1);
  CHECK(allowed(pool, cluster_of(11)) == 2);
  CHECK(allowed(pool, cluster_of(0)) == 0);
}

TEST_CASE("a node group's nodes are no NodePool's: they count in no pool's percentage",
          "[disruption]") {
  // Two nodes of the pool and three of an eksctl node group beside it: 50% of 2 is 1.
  Cluster cluster = cluster_of(2);
  for (int i = 0; i < 3; ++i) {
    Node node;
    node.name = "system-" + std::to_string(i);
    node.owner = NodeGroupOwner{.name = "system"};
    node.phase = NodePhase::Initialized;
    node.initialized = true;
    cluster.add_node(std::move(node));
  }
  CHECK(allowed(pool_with({percent(50)}), cluster) == 1);
}

TEST_CASE("a percent budget is of the pool's initialized nodes, rounded up", "[disruption]") {
  CHECK(allowed(pool_with({percent(30)}), cluster_of(10)) == 3);
  CHECK(allowed(pool_with({percent(30)}), cluster_of(11)) == 4);  // 3.3 rounds up
  CHECK(allowed(pool_with({percent(100)}), cluster_of(7)) == 7);
  CHECK(allowed(pool_with({percent(0)}), cluster_of(7)) == 0);
}

TEST_CASE("nodes still starting and nodes of other pools do not count", "[disruption]") {
  Cluster c = cluster_of(5);
  add_nodes(c, 1, NodePhase::Launching);
  add_nodes(c, 1, NodePhase::Launched);
  add_nodes(c, 1, NodePhase::Registered);
  add_nodes(c, 7, NodePhase::Initialized, /*pool=*/1);
  // 30% of this pool's 5 initialized nodes is 1.5 → 2 (8 nodes would give 3, 15 would give 5).
  CHECK(allowed(pool_with({percent(30)}), c) == 2);
}

TEST_CASE("a count budget allows that many nodes", "[disruption]") {
  CHECK(allowed(pool_with({count(2)}), cluster_of(10)) == 2);
  // A count is not capped by the pool's size.
  CHECK(allowed(pool_with({count(5)}), cluster_of(3)) == 5);
  CHECK(allowed(pool_with({count(0)}), cluster_of(3)) == 0);
}

TEST_CASE("with several budgets the most restrictive wins", "[disruption]") {
  CHECK(allowed(pool_with({percent(50), count(2)}), cluster_of(10)) == 2);
  CHECK(allowed(pool_with({count(5), percent(10)}), cluster_of(10)) == 1);
}

TEST_CASE("a budget for other reasons does not limit Empty", "[disruption]") {
  DisruptionBudget no_consolidation = count(0);
  no_consolidation.reasons = {DisruptionReason::Underutilized, DisruptionReason::Drifted};
  NodePool pool = pool_with({percent(50), no_consolidation});
  CHECK(allowed(pool, cluster_of(10), kSimStart, DisruptionReason::Empty) == 5);
  CHECK(allowed(pool, cluster_of(10), kSimStart, DisruptionReason::Underutilized) == 0);
  CHECK(allowed(pool, cluster_of(10), kSimStart, DisruptionReason::Drifted) == 0);
}

TEST_CASE("nodes being deleted count in the total and use up the allowance", "[disruption]") {
  Cluster c = cluster_of(10);
  add_nodes(c, 1, NodePhase::Deleting);
  // Terminated nodes are gone: they neither count nor use anything up.
  add_nodes(c, 10, NodePhase::Terminated);
  // 10% of 11 nodes (the deleting one included) is 1.1 → 2; one is in use → 1 left.
  // (Leaving the deleting node out of the total would give 1 − 1 = 0; counting the terminated
  // ones would give 3 − 1 = 2.)
  CHECK(allowed(pool_with({percent(10)}), c) == 1);
  CHECK(allowed(pool_with({count(3)}), c) == 2);

  add_nodes(c, 2, NodePhase::Deleting);
  // Three deleting nodes against a count of 2: never below zero.
  CHECK(allowed(pool_with({count(2)}), c) == 0);
}

// disruption/suite_test.go "should not consider nodes that have the terminating status
// condition as part of disruption count" (helpers.go BuildDisruptionBudgetMapping, v1.1.0+):
// once Karpenter has asked for the instance's termination, the node counts neither in the total
// nor as disrupting.
TEST_CASE("a node whose instance is terminating leaves the total and the disrupting count",
          "[disruption]") {
  Cluster c = cluster_of(10);
  add_nodes(c, 1, NodePhase::Deleting);
  c.instance_terminating(10, kSimStart);
  // 10% of 10 is 1 and nothing is disrupting: 1 (counted, it would give 2 − 1 = 1 too; a count
  // budget tells them apart).
  CHECK(allowed(pool_with({percent(10)}), c) == 1);
  CHECK(allowed(pool_with({count(3)}), c) == 3);
  // While it drains, before InstanceTerminating, it uses up one of the three.
  add_nodes(c, 1, NodePhase::Deleting);
  CHECK(allowed(pool_with({count(3)}), c) == 2);
}

TEST_CASE("a scheduled budget applies for its duration after each cron hit", "[disruption]") {
  // No disruption for 8 hours from 09:00 on weekdays; simulated t = 0 is Monday 00:00 UTC.
  DisruptionBudget business_hours = count(0);
  business_hours.schedule = "0 9 * * mon-fri";
  business_hours.duration = hours(8);
  NodePool pool = pool_with({business_hours});
  Cluster c = cluster_of(10);

  CHECK(allowed(pool, c, at(hours(10))) == 0);           // Monday 10:00: inside the window
  CHECK(allowed(pool, c, at(hours(18))) == kUnlimited);  // Monday 18:00: no active budget
  // The window is (hit, hit + duration]: Karpenter asks whether the next hit after now − duration
  // is not after now.
  CHECK(allowed(pool, c, at(hours(9) - seconds(1))) == kUnlimited);
  CHECK(allowed(pool, c, at(hours(9))) == 0);
  CHECK(allowed(pool, c, at(hours(17) - seconds(1))) == 0);
  CHECK(allowed(pool, c, at(hours(17))) == kUnlimited);
  // Saturday 10:00: no hit that morning.
  CHECK(allowed(pool, c, at(hours(5 * 24 + 10))) == kUnlimited);
}

TEST_CASE("outside its schedule a budget gives way to the others", "[disruption]") {
  DisruptionBudget business_hours = count(0);
  business_hours.schedule = "0 9 * * mon-fri";
  business_hours.duration = hours(8);
  NodePool pool = pool_with({percent(10), business_hours});
  Cluster c = cluster_of(10);
  CHECK(allowed(pool, c, at(hours(10))) == 0);
  CHECK(allowed(pool, c, at(hours(18))) == 1);
}

TEST_CASE("with no active budget disruption is unlimited", "[disruption]") {
  CHECK(allowed(pool_with({}), cluster_of(10)) == kUnlimited);
  DisruptionBudget drift_only = count(1);
  drift_only.reasons = {DisruptionReason::Drifted};
  CHECK(allowed(pool_with({drift_only}), cluster_of(10)) == kUnlimited);
}
