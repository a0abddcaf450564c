// Consolidation's candidates kept across passes (no upstream test: upstream builds them afresh
// every pass, GetCandidates in core:pkg/controllers/disruption/helpers.go). Each case changes one
// thing the candidates read between two calls and checks that the kept candidates follow it, as
// a fresh build does; removing the invalidation or the per-call read it covers fails the case.
#include "fleetsim/disruption/candidate_cache.hpp"

#include <catch2/catch.hpp>

#include "disruption_rig.hpp"

using namespace fleetsim;
using Lines = std::vector<std::string>;

namespace {

NodePool pool() {
  NodePool p = test::make_pool("default");
  p.requirements.add(std::string(label::kInstanceFamily), test::in({"m5"}));
  p.requirements.add(std::string(label::kCapacityType), test::in({"on-demand"}));
  p.expire_after = std::nullopt;
  return p;
}

PodSpec cpu_pod() { return test::make_pod({.cpu_millis = 500}); }

struct CacheRig {
  explicit CacheRig(NodePool p = pool(), std::vector<PodDisruptionBudgetSpec> budgets = {})
      : rig(test::small_catalog(), {std::move(p)}, {}, std::move(budgets)) {}

  ConsolidationCandidateInputs inputs() const {
    return {.cluster = rig.cluster,
            .claims = rig.provisioner.launcher().claims(),
            .cloud = rig.cloud,
            .pdbs = rig.pdbs,
            .pools = rig.provisioner.nodepools(),
            .pools_generation = rig.provisioner.generation(),
            .version = version};
  }

  // The kept candidates now by name, checked against a fresh build field by field.
  Lines pass() {
    const SimTime now = rig.sim.now();
    cache.candidates(inputs(), now, out);
    const std::vector<Candidate> fresh = consolidation_candidates(inputs(), now);
    REQUIRE(out.size() == fresh.size());
    Lines names;
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(out[i].node == fresh[i].node);
      CHECK(out[i].pool == fresh[i].pool);
      CHECK(out[i].price == fresh[i].price);
      CHECK(out[i].reschedule_cost == fresh[i].reschedule_cost);
      CHECK(out[i].disruption_cost == fresh[i].disruption_cost);
      CHECK(out[i].empty == fresh[i].empty);
      CHECK(out[i].pods == fresh[i].pods);
      names.push_back(rig.cluster.node(out[i].node).name);
    }
    return names;
  }

  test::DisruptionRig rig;
  KarpenterVersion version;
  CandidateCache cache;
  std::vector<Candidate> out;
};

}  // namespace

// consolidation_test.go "can delete nodes, considers karpenter.sh/do-not-disrupt set to true on
// pods": a pod bound after a pass moves the cluster's revision.
TEST_CASE("a pod with do-not-disrupt bound after a pass removes its node", "[disruption]") {
  CacheRig c;
  const NodeId a = c.rig.launch("node-a", "m5.large");
  c.rig.bind(a, cpu_pod());
  c.rig.bind(c.rig.launch("node-b", "m5.large"), cpu_pod());
  CHECK(c.pass() == Lines{"node-a", "node-b"});
  PodSpec pinned = cpu_pod();
  pinned.do_not_disrupt = kForever;
  c.rig.bind(a, pinned);
  CHECK(c.pass() == Lines{"node-b"});
  CHECK(c.cache.rebuilds() == 2);
}

// IsDoNotDisruptActive (pkg/utils/pod): a duration counts from the pod's start, so the node turns
// candidate with time alone.
TEST_CASE("a do-not-disrupt duration that runs out makes its node a candidate without a rebuild",
          "[disruption]") {
  CacheRig c;
  PodSpec pinned = cpu_pod();
  pinned.do_not_disrupt = minutes(5);
  c.rig.bind(c.rig.launch("node-a", "m5.large"), pinned);
  c.rig.bind(c.rig.launch("node-b", "m5.large"), cpu_pod());
  CHECK(c.pass() == Lines{"node-b"});
  c.rig.sim.run_until(at(minutes(5)) - seconds(1));
  CHECK(c.pass() == Lines{"node-b"});
  c.rig.sim.run_until(at(minutes(5)));
  CHECK(c.pass() == Lines{"node-a", "node-b"});
  CHECK(c.cache.rebuilds() == 1);
}

// consolidation.go sortCandidates, from v1.14 (#2962) by savings ratio, price over reschedule cost:
// a spot or price trace change reorders them though the cluster did not change.
TEST_CASE("a price change reorders the kept candidates", "[disruption]") {
  CacheRig c;
  c.rig.bind(c.rig.launch("node-a", "m5.large", "us-east-1a"), cpu_pod());
  const NodeId b = c.rig.launch("node-b", "m5.large", "us-east-1b");
  c.rig.bind(b, cpu_pod());
  CHECK(c.pass() == Lines{"node-a", "node-b"});
  c.rig.cloud.set_price(offering_of(c.rig.catalog, c.rig.cluster.node(b)), 0.2);
  CHECK(c.pass() == Lines{"node-b", "node-a"});
  CHECK(c.out[0].price == 0.2);
  CHECK(c.cache.rebuilds() == 1);
}

// StateNode.Nominated (core:pkg/controllers/state/statenode.go): a node pods were planned onto is
// no candidate until the nomination window ends.
TEST_CASE("a nomination that expires gives the node back as a candidate", "[disruption]") {
  CacheRig c;
  const NodeId a = c.rig.launch("node-a", "m5.large");
  c.rig.bind(a, cpu_pod());
  c.rig.bind(c.rig.launch("node-b", "m5.large"), cpu_pod());
  CHECK(c.pass() == Lines{"node-a", "node-b"});
  c.rig.provisioner.launcher().claims().hold_nominated(a, c.rig.sim.now() + seconds(20));
  CHECK(c.pass() == Lines{"node-b"});
  c.rig.sim.run_until(c.rig.sim.now() + seconds(20));
  CHECK(c.pass() == Lines{"node-a", "node-b"});
  CHECK(c.cache.rebuilds() == 1);
}

// The Consolidatable condition (core:pkg/controllers/nodeclaim/disruption/consolidation.go):
// consolidateAfter after the last pod event, with no change to the cluster.
TEST_CASE("consolidateAfter elapsing makes nodes candidates without a cluster change",
          "[disruption]") {
  NodePool p = pool();
  p.disruption.consolidate_after = seconds(30);
  CacheRig c(p);
  c.rig.bind(c.rig.launch("node-a", "m5.large"), cpu_pod());
  c.rig.bind(c.rig.launch("node-b", "m5.large"), cpu_pod());
  c.rig.sim.run_until(at(seconds(10)));
  CHECK(c.pass().empty());
  c.rig.sim.run_until(at(seconds(30)));
  CHECK(c.pass() == Lines{"node-a", "node-b"});
  CHECK(c.cache.rebuilds() == 1);
}

// pdb.Limits CanEvictPods (core:pkg/utils/pdb): pods turning Ready change what a PDB allows,
// which moves the pods' status revision, not the cluster's.
TEST_CASE("pods turning Ready let a PodDisruptionBudget allow their nodes", "[disruption]") {
  CacheRig c(pool(),
             {PodDisruptionBudgetSpec{
                 .name = "all", .min_available = IntOrPercent{1}, .selector = LabelSelector{}}});
  const PodId pa = c.rig.bind(c.rig.launch("node-a", "m5.large"), cpu_pod());
  const PodId pb = c.rig.bind(c.rig.launch("node-b", "m5.large"), cpu_pod());
  CHECK(c.pass().empty());  // none healthy: minAvailable 1 allows no eviction
  const std::uint64_t revision = c.rig.cluster.revision();
  c.rig.cluster.pod_ready(pa, c.rig.sim.now());
  c.rig.cluster.pod_ready(pb, c.rig.sim.now());
  REQUIRE(c.rig.cluster.revision() == revision);
  CHECK(c.pass() == Lines{"node-a", "node-b"});
}

// consolidation_test.go "WhenEmpty never consolidates an underutilized node": a NodePool applied
// mid-run moves the provisioner's generation.
TEST_CASE("a NodePool turned WhenEmpty drops its kept candidates", "[disruption]") {
  CacheRig c;
  c.rig.bind(c.rig.launch("node-a", "m5.large"), cpu_pod());
  CHECK(c.pass() == Lines{"node-a"});
  NodePool changed = pool();
  changed.disruption.policy = ConsolidationPolicy::WhenEmpty;
  c.rig.provisioner.apply_nodepools({changed});
  CHECK(c.pass().empty());
}

// Before v1.14 candidates go by DisruptionCost, the eviction costs scaled by LifetimeRemaining
// (pkg/utils/disruption): the order moves with time alone.
TEST_CASE("before v1.14 the share of expireAfter left reorders the kept candidates",
          "[disruption]") {
  NodePool p = pool();
  p.expire_after = seconds(100);
  CacheRig c(p);
  c.version.minor = 13;
  const NodeId a = c.rig.launch("node-a", "m5.large");
  c.rig.bind(a, cpu_pod());
  c.rig.bind(a, cpu_pod());
  c.rig.sim.run_until(at(seconds(40)));
  c.rig.bind(c.rig.launch("node-b", "m5.large"), cpu_pod());
  c.rig.sim.run_until(at(seconds(50)));
  CHECK(c.pass() == Lines{"node-b", "node-a"});  // 1 × 0.9 before 2 × 0.5
  CHECK(c.out[1].disruption_cost == 1.0);
  c.rig.sim.run_until(at(seconds(90)));
  CHECK(c.pass() == Lines{"node-a", "node-b"});  // 2 × 0.1 before 1 × 0.5
  CHECK(c.cache.rebuilds() == 1);
}
