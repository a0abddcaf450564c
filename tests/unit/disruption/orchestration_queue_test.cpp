// The orchestration queue's failure paths, translated from Karpenter's
// core:pkg/controllers/disruption/orchestration/suite_test.go: a replace whose replacement does
// not launch, goes away, or is not initialized within 10 minutes gives its node back (untainted,
// not deleted). The node: an m5.2xlarge with a 500m pod, which single-node consolidation replaces
// with a c5.large (the command is computed at 10 s and started at 25 s).
#include <catch2/catch.hpp>

#include "disruption_rig.hpp"

using namespace fleetsim;
using Lines = std::vector<std::string>;

namespace {

NodePool consolidating_pool() {
  NodePool p = test::make_pool("default");
  p.requirements.add(std::string(label::kInstanceFamily), test::in({"m5", "c5"}));
  p.requirements.add(std::string(label::kCapacityType), test::in({"on-demand"}));
  p.expire_after = std::nullopt;
  p.disruption.budgets = {DisruptionBudget{.percent = true, .nodes = 100}};
  return p;
}

const Lines kReplace{"25s single_node_consolidation [node-a] -> [c5.large m5.large m5.xlarge]"};

NodeId replaced_node(test::DisruptionRig& rig) {
  const NodeId a = rig.launch("node-a", "m5.2xlarge");
  rig.bind(a, test::make_pod({.cpu_millis = 500}));
  rig.controller.start();
  return a;
}

}  // namespace

TEST_CASE("should remove the karpenter.sh/disruption taint for nodes that fail to disrupt",
          "[disruption]") {
  test::DisruptionRig rig(test::small_catalog(), {consolidating_pool()});
  // No capacity for any type the replacement may be: its launch fails.
  for (std::string_view name : {"c5.large", "m5.large", "m5.xlarge"}) {
    const auto t = static_cast<std::uint32_t>(*rig.catalog.index_of(name));
    for (std::size_t i = 0; i < rig.catalog.types()[t].offerings.size(); ++i)
      rig.cloud.set_capacity(rig.catalog.offering_index(t, i), 0);
  }
  const NodeId a = replaced_node(rig);
  rig.sim.run_until(at(seconds(25)));
  CHECK(rig.bus.decisions == kReplace);
  CHECK(rig.cluster.active_nodes() == std::vector<NodeId>{a});  // no replacement launched
  CHECK_FALSE(rig.cluster.node(a).marked_for_disruption());
  rig.sim.run_until(at(seconds(60)));
  CHECK(rig.bus.lines.empty());
  CHECK(rig.cluster.node(a).phase == NodePhase::Initialized);
}

TEST_CASE("a replace whose replacement goes away before it is initialized gives its node back",
          "[disruption]") {
  test::DisruptionRig rig(test::small_catalog(), {consolidating_pool()});
  const NodeId a = replaced_node(rig);
  rig.sim.run_until(at(seconds(25)));
  REQUIRE(rig.bus.decisions == kReplace);
  CHECK(rig.cluster.node(a).marked_for_disruption());
  const NodeId replacement = rig.cluster.nodes().back().id;
  CHECK(rig.cluster.node(replacement).instance_type == "c5.large");
  rig.cloud.terminate(replacement, rig.sim.now());
  // The queue's first look, 1 s after the start, finds it gone.
  rig.sim.run_until(at(seconds(26)));
  CHECK_FALSE(rig.cluster.node(a).marked_for_disruption());
  CHECK(rig.cluster.node(a).phase == NodePhase::Initialized);
  CHECK(rig.bus.lines.empty());
}

TEST_CASE("should return an error and clean up when a command times out", "[disruption]") {
  // The c5.large replacement takes 11 minutes to initialize.
  const Catalog catalog = test::small_catalog();
  std::vector<NodeLatency> latencies(catalog.types().size(), test::kNoLatency);
  latencies[*catalog.index_of("c5.large")].initialization = minutes(11);
  test::DisruptionRig rig(catalog, {consolidating_pool()}, {}, {}, latencies);
  const NodeId a = replaced_node(rig);
  // The queue looks every second after the start at 25 s (v1.6+); the look at 626 s is the first
  // more than 10 minutes after it (queue.go: clock.Since(CreationTimestamp) > retryDuration).
  rig.sim.run_until(at(seconds(625)));
  REQUIRE(rig.bus.decisions == kReplace);
  CHECK(rig.cluster.node(a).marked_for_disruption());
  rig.sim.run_until(at(seconds(626)));
  CHECK_FALSE(rig.cluster.node(a).marked_for_disruption());
  CHECK(rig.cluster.node(a).phase == NodePhase::Initialized);
  CHECK(rig.bus.lines.empty());
}
