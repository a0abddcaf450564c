// kube-scheduler's InterPodAffinity score, translated from upstream's TestPreferredAffinity
// (pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go). Upstream's "region" key is
// fleetsim's zone and its "az" key the hostname: fleetsim models those two.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/kube/inter_pod_affinity.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

const Labels kS1{{"security", "S1"}};
const Labels kS2{{"security", "S2"}};
const Labels kNone;

PodAffinityTerm term(std::string_view key, std::vector<SelectorExpression> expressions) {
  return PodAffinityTerm{.topology_key = std::string(key),
                         .selector = LabelSelector{.match_expressions = std::move(expressions)}};
}
SelectorExpression security_in(std::vector<std::string> values) {
  return {.key = "security", .op = Operator::In, .values = std::move(values)};
}

struct AffinityRig {
  NodeId node(std::string name, std::string zone) {
    return add_node(cluster, {.name = std::move(name), .zone = std::move(zone)});
  }
  PodId add(const Labels& labels, PodSpec spec) {
    Pod p;
    p.name = "pod-" + std::to_string(cluster.next_pod_id());
    p.spec = specs.add(std::move(spec));
    p.labels = &labels;
    p.namespace_name = "default";
    return cluster.add_pod(std::move(p));
  }
  void place(NodeId n, const Labels& labels, PodSpec spec = {}, int count = 1) {
    for (int i = 0; i < count; ++i) cluster.bind(add(labels, spec), n, kSimStart);
  }
  std::vector<std::int64_t> scores(const Labels& labels, PodSpec spec,
                                   const std::vector<NodeId>& nodes) {
    std::vector<std::int64_t> out(nodes.size());
    const bool scored =
        inter_pod_affinity_score(cluster, cluster.pod(add(labels, std::move(spec))), nodes, out);
    if (!scored) return {};
    return out;
  }
  Cluster cluster;
  SpecStore specs;
};

PodSpec preferring(std::int32_t weight, PodAffinityTerm t, bool anti = false) {
  PodSpec s;
  PodAffinityRules& rules = anti ? s.pod_anti_affinity : s.pod_affinity;
  rules.preferred.push_back(std::move(t));
  rules.preferred_weights.push_back(weight);
  return s;
}

}  // namespace

TEST_CASE("InterPodAffinity score: the region with more matching pods scores higher", "[kube]") {
  // "Affinity: nodes in one region has more matching pods comparing to other region - so the
  // region which has more matches will get high score".
  AffinityRig rig;
  const NodeId n1 = rig.node("machine1", "china"), n2 = rig.node("machine2", "india");
  const NodeId n3 = rig.node("machine3", "china"), n4 = rig.node("machine4", "china");
  const NodeId n5 = rig.node("machine5", "india");
  rig.place(n1, kS2, {}, 2);
  for (NodeId n : {n2, n3, n4, n5}) rig.place(n, kS2);
  const PodSpec stay_with_s2 = preferring(6, term(label::kZone, {security_in({"S2"})}));
  CHECK(rig.scores(kS1, stay_with_s2, {n1, n2, n3, n4, n5}) ==
        std::vector<std::int64_t>{100, 0, 100, 100, 0});
}

TEST_CASE("InterPodAffinity score: a node with more pods to avoid scores lower", "[kube]") {
  // "Anti Affinity: one node has more matching pods comparing to other node - so the node which
  // has more unmatches will get high score".
  AffinityRig rig;
  const NodeId n1 = rig.node("machine1", "az1"), n2 = rig.node("machine2", "india");
  rig.place(n1, kS1, {}, 2);
  rig.place(n2, kS2);
  const PodSpec away_from_s1 =
      preferring(5, term(label::kHostname, {security_in({"S1"})}), /*anti=*/true);
  CHECK(rig.scores(kS1, away_from_s1, {n1, n2}) == std::vector<std::int64_t>{0, 100});
}

TEST_CASE("InterPodAffinity score: running pods' required affinity counts 1 per term", "[kube]") {
  // "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod
  // affinity symmetry": both running pods' two required terms select the S1 pod; a node without
  // a zone gets nothing.
  AffinityRig rig;
  const NodeId n1 = rig.node("machine1", "china"), n2 = rig.node("machine2", "india");
  const NodeId n3 = rig.node("machine3", "");
  PodSpec hard;
  hard.pod_affinity.required = {
      term(label::kZone, {security_in({"S1", "value2"})}),
      term(label::kZone, {{.key = "security", .op = Operator::Exists},
                          {.key = "wrongkey", .op = Operator::DoesNotExist}})};
  rig.place(n1, kS1, hard);
  rig.place(n2, kS2, hard);
  CHECK(rig.scores(kS1, {}, {n1, n2, n3}) == std::vector<std::int64_t>{100, 100, 0});
}

TEST_CASE("InterPodAffinity score: equal totals all score 0 and nothing to score is skipped",
          "[kube]") {
  // "Avoid panic when partial nodes in a topology don't have pods with affinity".
  AffinityRig rig;
  const NodeId n1 = rig.node("machine1", "china"), n2 = rig.node("machine2", "china");
  rig.place(n1, kS1);
  PodSpec preference = preferring(8, term(label::kZone, {security_in({"S1"})}));
  rig.place(n2, kNone, preference);
  CHECK(rig.scores(kS1, {}, {n1, n2}) == std::vector<std::int64_t>{0, 0});

  // "all nodes are same priority as Affinity is nil": PreScore skips.
  AffinityRig plain;
  const NodeId m = plain.node("machine1", "china");
  plain.place(m, kS1);
  CHECK(plain.scores(kS1, {}, {m}).empty());
}
