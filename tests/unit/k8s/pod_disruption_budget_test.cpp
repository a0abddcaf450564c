// PodDisruptionBudget status and the eviction API, translated from Kubernetes'
// pkg/controller/disruption/disruption_test.go and pkg/registry/core/pod/storage/eviction_test.go
// (the upstream case is named per test).
#include "fleetsim/k8s/pod_disruption_budget.hpp"

#include <catch2/catch.hpp>

#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct PdbRig {
  Cluster cluster;
  SpecStore specs;
  Labels web{{"app", "web"}};
  Labels other{{"app", "db"}};
  NodeId node = add_node(cluster, {.allocatable = node_allocatable(64000, 256)});

  // A Ready pod of `labels` bound to the node.
  PodId ready_pod(const Labels& labels = {{"app", "web"}}, std::string ns = "default") {
    const Labels& l = labels == web ? web : other;
    Pod p{.name = "pod-" + std::to_string(cluster.next_pod_id()),
          .spec = specs.add(pod_requests(100, 128)),
          .labels = &l,
          .namespace_name = std::move(ns),
          .uid = "uid-" + std::to_string(cluster.next_pod_id())};
    const PodId id = cluster.add_pod(std::move(p));
    cluster.bind(id, node, kSimStart);
    cluster.pod_ready(id, kSimStart);
    return id;
  }
};

PodDisruptionBudgetSpec web_pdb(std::optional<IntOrPercent> min_available,
                                std::optional<IntOrPercent> max_unavailable = std::nullopt) {
  return {.name = "web",
          .min_available = min_available,
          .max_unavailable = max_unavailable,
          .selector = LabelSelector{.match_labels = {{"app", "web"}}}};
}

}  // namespace

TEST_CASE(
    "TestUnavailable: minAvailable 3 of 4 Ready pods allows one disruption, none once one "
    "is not Ready",
    "[k8s][pdb]") {
  PdbRig rig;
  std::vector<PodId> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(rig.ready_pod());
  PodDisruptionBudgets pdbs(rig.cluster, {web_pdb(IntOrPercent{.value = 3})});
  PdbStatus s = pdbs.status(0);
  CHECK(s.expected == 4);
  CHECK(s.healthy == 4);
  CHECK(s.desired_healthy == 3);
  CHECK(s.allowed == 1);
  rig.cluster.pod_unready(pods[0]);
  CHECK(pdbs.status(0).allowed == 0);
}

TEST_CASE("TestIntegerMaxUnavailable and percentages, rounded up", "[k8s][pdb]") {
  PdbRig rig;
  for (int i = 0; i < 3; ++i) rig.ready_pod();
  rig.ready_pod(rig.other);  // not selected
  auto status = [&](PodDisruptionBudgetSpec spec) {
    return PodDisruptionBudgets(rig.cluster, {std::move(spec)}).status(0);
  };
  // maxUnavailable 1 of 3: desired 2, one disruption.
  CHECK(status(web_pdb(std::nullopt, IntOrPercent{.value = 1})).allowed == 1);
  // minAvailable 50% of 3 rounds up to 2: one disruption.
  CHECK(status(web_pdb(IntOrPercent{.value = 50, .percent = true})).desired_healthy == 2);
  // maxUnavailable 50% of 3 rounds up to 2 unavailable: desired 1, two disruptions.
  const PdbStatus s = status(web_pdb(std::nullopt, IntOrPercent{.value = 50, .percent = true}));
  CHECK(s.desired_healthy == 1);
  CHECK(s.allowed == 2);
  // maxUnavailable 0: no disruption ever.
  CHECK(status(web_pdb(std::nullopt, IntOrPercent{.value = 0})).allowed == 0);
}

TEST_CASE(
    "TestNoSelector: a null selector selects nothing, an empty one the whole namespace, "
    "the namespace must match",
    "[k8s][pdb]") {
  PdbRig rig;
  rig.ready_pod();
  rig.ready_pod(rig.other);
  rig.ready_pod(rig.web, "shop");
  PodDisruptionBudgetSpec none = web_pdb(IntOrPercent{.value = 1});
  none.selector.reset();
  PodDisruptionBudgetSpec all = web_pdb(IntOrPercent{.value = 1});
  all.selector = LabelSelector{};
  PodDisruptionBudgets pdbs(rig.cluster, {none, all});
  CHECK(pdbs.status(0).expected == 0);
  CHECK(pdbs.status(1).expected == 2);  // the two pods of namespace default
  CHECK(pdbs.status(1).allowed == 1);
}

TEST_CASE(
    "eviction: Ready pods go while the budget allows, an unready pod follows the "
    "unhealthyPodEvictionPolicy, two PDBs refuse",
    "[k8s][pdb]") {
  PdbRig rig;
  const PodId a = rig.ready_pod();
  const PodId b = rig.ready_pod();
  PodDisruptionBudgets pdbs(rig.cluster, {web_pdb(IntOrPercent{.value = 1})});
  CHECK(pdbs.eviction_allowed(rig.cluster.pod(a)));
  rig.cluster.finish(a, PodPhase::Deleted, kSimStart);  // evicted: it left
  // The controller's replacement is pending, not healthy: b must stay until it is Ready.
  const PodId replacement =
      add_pending_pod(rig.cluster, rig.specs.add(pod_requests(100, 128)), kSimStart);
  CHECK(pdbs.eviction_allowed(rig.cluster.pod(replacement)));  // not running: no check
  CHECK_FALSE(pdbs.eviction_allowed(rig.cluster.pod(b)));
  CHECK(pdbs.blocking(rig.cluster.pod(b)) == "default/web");

  // TestEvictionIgnorePDB-style unhealthy cases: b not Ready, the budget unhealthy (0 < 1).
  rig.cluster.pod_unready(b);
  CHECK_FALSE(pdbs.eviction_allowed(rig.cluster.pod(b)));
  PodDisruptionBudgetSpec always = web_pdb(IntOrPercent{.value = 1});
  always.unhealthy_pod_eviction_policy = UnhealthyPodEvictionPolicy::AlwaysAllow;
  PodDisruptionBudgets lenient(rig.cluster, {always});
  CHECK(lenient.eviction_allowed(rig.cluster.pod(b)));
  CHECK_FALSE(lenient.blocking(rig.cluster.pod(b)));

  // "This pod has more than one PodDisruptionBudget": refused, whatever they allow.
  const PodId c = rig.ready_pod();
  PodDisruptionBudgetSpec second = web_pdb(IntOrPercent{.value = 0});
  second.name = "web-2";
  PodDisruptionBudgets two(rig.cluster, {web_pdb(IntOrPercent{.value = 0}), second});
  CHECK_FALSE(two.eviction_allowed(rig.cluster.pod(c)));
  CHECK(two.blocking(rig.cluster.pod(c)) == "default/web");
}

TEST_CASE(
    "a pod is covered only by selectors it matches in full and a status follows each change "
    "of the pods it counts",
    "[k8s][pdb]") {
  PdbRig rig;
  const Labels front{{"app", "web"}, {"tier", "front"}};
  const PodId plain = rig.ready_pod();  // app=web only
  Pod p{.name = "front",
        .spec = rig.specs.add(pod_requests(100, 128)),
        .labels = &front,
        .namespace_name = "default"};
  const PodId f = rig.cluster.add_pod(std::move(p));
  rig.cluster.bind(f, rig.node, kSimStart);
  PodDisruptionBudgetSpec both = web_pdb(IntOrPercent{.value = 1});
  both.name = "front";
  both.selector->match_labels.emplace("tier", "front");
  PodDisruptionBudgetSpec expression = web_pdb(IntOrPercent{.value = 1});
  expression.name = "any-app";
  expression.selector = LabelSelector{
      .match_expressions = {{.key = "app", .op = Operator::In, .values = {"db", "web"}}}};
  PodDisruptionBudgets pdbs(rig.cluster, {both, expression});
  CHECK(pdbs.covering(rig.cluster.pod(plain)) == std::vector<std::size_t>{1});
  CHECK(pdbs.covering(rig.cluster.pod(f)) == std::vector<std::size_t>{0, 1});
  CHECK(pdbs.status(1).expected == 2);
  CHECK(pdbs.status(1).healthy == 1);  // f is not Ready yet
  CHECK(pdbs.status(0).allowed == 0);  // minAvailable 1 of 1, and f is not Ready
  rig.cluster.pod_ready(f, kSimStart);
  CHECK(pdbs.status(1).healthy == 2);
  CHECK(pdbs.status(0).allowed == 0);
  rig.cluster.pod_terminating(plain, kSimStart);
  CHECK(pdbs.status(1).healthy == 1);
  CHECK(pdbs.status(1).expected == 2);
  rig.ready_pod(rig.other);  // app=db
  CHECK(pdbs.status(1).expected == 3);
}
