// kube-scheduler's PodTopologySpread, translated from upstream's plugin tests
// (pkg/scheduler/framework/plugins/podtopologyspread/{filtering,scoring}_test.go). Upstream's
// tests name hosts with a custom "node" label; fleetsim spreads over kubernetes.io/hostname.
#include "fleetsim/kube/topology_spread.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <vector>

#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

const Labels kFoo{{"foo", ""}};
const Labels kBar{{"bar", ""}};
const Labels kFooBar{{"foo", ""}, {"bar", ""}};

TopologySpread spread(std::string_view key, int max_skew, WhenUnsatisfiable when,
                      const Labels& selector = kFoo) {
  return TopologySpread{.topology_key = std::string(key),
                        .max_skew = max_skew,
                        .when_unsatisfiable = when,
                        .selector = LabelSelector{.match_labels = selector}};
}

struct SpreadRig {
  NodeId node(std::string name, std::string zone, Labels extra = {}) {
    return add_node(
        cluster,
        {.name = std::move(name), .zone = std::move(zone), .extra_labels = std::move(extra)});
  }
  Pod make(const Labels& labels, std::string ns, PodSpec spec = {}) {
    Pod p;
    p.name = "pod-" + std::to_string(cluster.next_pod_id());
    p.spec = specs.add(std::move(spec));
    p.labels = &labels;
    p.namespace_name = std::move(ns);
    p.workload = workload;
    return p;
  }
  // Existing pods on a node.
  void place(NodeId n, const Labels& labels, int count = 1, std::string ns = "default") {
    for (int i = 0; i < count; ++i) cluster.bind(cluster.add_pod(make(labels, ns)), n, kSimStart);
  }
  const Pod& incoming(const Labels& labels, PodSpec spec) {
    return cluster.pod(cluster.add_pod(make(labels, "default", std::move(spec))));
  }
  // The nodes the filter allows, of those given.
  std::vector<NodeId> allowed(const Pod& pod, const SpreadDefaults& defaults = {}) {
    std::vector<std::uint8_t> mask(cluster.nodes().size(), 1);
    topology_spread_filter(cluster, pod, spread_constraints(cluster, pod, defaults), mask);
    std::vector<NodeId> out;
    for (NodeId id : cluster.active_nodes())
      if (mask[id] != 0) out.push_back(id);
    return out;
  }
  std::vector<std::int64_t> scores(const Pod& pod, const std::vector<NodeId>& feasible) {
    std::vector<std::int64_t> out(feasible.size());
    topology_spread_score(cluster, pod, spread_constraints(cluster, pod, {}), feasible, out);
    return out;
  }

  Cluster cluster;
  SpecStore specs;
  WorkloadId workload = 0;
};

PodSpec constrained(std::vector<TopologySpread> constraints) {
  PodSpec s;
  s.requests = pod_requests(100, 128);
  s.topology_spread = std::move(constraints);
  return s;
}

}  // namespace

// filtering_test.go TestSingleConstraint.
TEST_CASE("PodTopologySpread filter: pods spread across nodes as 2/1/0/3 - only node-x fits",
          "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const NodeId x = rig.node("node-x", "zone2"), y = rig.node("node-y", "zone2");
  rig.place(a, kFoo, 2);
  rig.place(b, kFoo, 1);
  rig.place(y, kFoo, 3);
  const auto host = [](int skew) {
    return constrained({spread(label::kHostname, skew, WhenUnsatisfiable::DoNotSchedule)});
  };
  CHECK(rig.allowed(rig.incoming(kFoo, host(1))) == std::vector<NodeId>{x});
  // "... maxSkew is 2, node-b and node-x fit".
  CHECK(rig.allowed(rig.incoming(kFoo, host(2))) == std::vector<NodeId>{b, x});
  // "... but pod doesn't match itself".
  CHECK(rig.allowed(rig.incoming(kBar, host(1))) == std::vector<NodeId>{b, x});
}

TEST_CASE("PodTopologySpread filter: a node without the zone label is refused", "[kube]") {
  // "pods spread across zones as 1/2 due to absence of label 'zone' on node-b".
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "");
  const NodeId x = rig.node("node-x", "zone2"), y = rig.node("node-y", "zone2");
  for (NodeId n : {a, b, x, y}) rig.place(n, kFoo);
  const Pod& pod =
      rig.incoming(kFoo, constrained({spread(label::kZone, 1, WhenUnsatisfiable::DoNotSchedule)}));
  CHECK(rig.allowed(pod) == std::vector<NodeId>{a});
}

TEST_CASE("PodTopologySpread filter: terminating pods and other namespaces do not count",
          "[kube]") {
  // "terminating Pods should be excluded".
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  rig.place(a, kFoo);
  rig.cluster.pod_terminating(rig.cluster.node(a).pods.front(), kSimStart);
  rig.place(b, kFoo);
  const auto host = constrained({spread(label::kHostname, 1, WhenUnsatisfiable::DoNotSchedule)});
  CHECK(rig.allowed(rig.incoming(kFoo, host)) == std::vector<NodeId>{a});

  // "existing pods in a different namespace do not count".
  SpreadRig ns;
  const NodeId na = ns.node("node-a", "zone1"), nb = ns.node("node-b", "zone1");
  const NodeId nx = ns.node("node-x", "zone2"), ny = ns.node("node-y", "zone2");
  ns.place(na, kFoo, 1, "ns1");
  ns.place(na, kFoo, 1, "ns2");
  ns.place(nx, kFoo);
  ns.place(ny, kFoo);
  const auto zone = constrained({spread(label::kZone, 1, WhenUnsatisfiable::DoNotSchedule)});
  CHECK(ns.allowed(ns.incoming(kFoo, zone)) == std::vector<NodeId>{na, nb});
}

TEST_CASE("PodTopologySpread filter: a node the pod's node selection excludes holds no domain",
          "[kube]") {
  // "NodeAffinityPolicy honored with labelSelectors": node-y lacks foo, so its pod is not
  // counted and the fewest is 0 on node-x.
  SpreadRig rig;
  const Labels foo_node{{"foo", ""}};
  const NodeId a = rig.node("node-a", "zone1", foo_node), b = rig.node("node-b", "zone1", foo_node);
  const NodeId x = rig.node("node-x", "zone2", foo_node), y = rig.node("node-y", "zone2");
  rig.place(a, kFoo);
  rig.place(b, kFoo);
  rig.place(y, kFoo);
  PodSpec s = constrained({spread(label::kHostname, 1, WhenUnsatisfiable::DoNotSchedule)});
  s.node_requirements = Requirements::from_labels(foo_node);
  const std::vector<NodeId> allowed = rig.allowed(rig.incoming(kFoo, std::move(s)));
  // node-y passes this filter only; NodeAffinity refuses it.
  CHECK(allowed == std::vector<NodeId>{x, y});
  (void)a;
  (void)b;
}

// filtering_test.go TestSingleConstraint, minDomains cases (hostname: one domain per node).
TEST_CASE("PodTopologySpread filter: fewer domains than minDomains make the fewest 0", "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const NodeId c = rig.node("node-c", "zone1");
  rig.place(a, kFoo, 2);
  rig.place(b, kFoo, 2);
  rig.place(c, kFoo, 1);
  auto host = [](int min_domains) {
    TopologySpread t = spread(label::kHostname, 2, WhenUnsatisfiable::DoNotSchedule);
    t.min_domains = min_domains;
    return constrained({t});
  };
  // "... maxSkew is 2 and the number of domains < minDomains then the third node fits".
  CHECK(rig.allowed(rig.incoming(kFoo, host(4))) == std::vector<NodeId>{c});
  // "... the number of domains > minDomains then the all nodes fit".
  CHECK(rig.allowed(rig.incoming(kFoo, host(2))) == std::vector<NodeId>{a, b, c});

  // "pods spread across zone as 2/1 - maxSkew is 2 and the number of domains < minDomains then
  // the third and fourth nodes fit".
  SpreadRig zones;
  const NodeId za = zones.node("node-a", "zone1"), zb = zones.node("node-b", "zone1");
  const NodeId zx = zones.node("node-x", "zone2"), zy = zones.node("node-y", "zone2");
  zones.place(za, kFoo);
  zones.place(zb, kFoo);
  zones.place(zy, kFoo);
  TopologySpread t = spread(label::kZone, 2, WhenUnsatisfiable::DoNotSchedule);
  t.min_domains = 3;
  CHECK(zones.allowed(zones.incoming(kFoo, constrained({t}))) == std::vector<NodeId>{zx, zy});
}

TEST_CASE("PodTopologySpread filter: the inclusion policies choose the nodes that count",
          "[kube]") {
  const Labels foo_node{{"foo", ""}};
  const Taint unschedulable{.key = "node.kubernetes.io/unschedulable",
                            .effect = TaintEffect::NoSchedule};
  auto rig_with = [&](SpreadRig& rig, bool taint_y) {
    for (const char* n : {"node-a", "node-b", "node-x"})
      add_node(rig.cluster, {.name = n, .zone = "zone1", .extra_labels = foo_node});
    const NodeId y = add_node(
        rig.cluster, {.name = "node-y",
                      .zone = "zone2",
                      .taints = taint_y ? std::vector<Taint>{unschedulable} : std::vector<Taint>{},
                      .extra_labels = taint_y ? foo_node : Labels{}});
    rig.place(0, kFoo);
    rig.place(1, kFoo);
    rig.place(y, kFoo);
  };
  // "NodeAffinityPolicy ignored with labelSelectors": node-y's pod counts, so node-y is one
  // ahead of node-x.
  SpreadRig ignored;
  rig_with(ignored, false);
  TopologySpread t = spread(label::kHostname, 1, WhenUnsatisfiable::DoNotSchedule);
  t.node_affinity_policy = InclusionPolicy::Ignore;
  PodSpec s = constrained({t});
  s.node_requirements = Requirements::from_labels(foo_node);
  CHECK(ignored.allowed(ignored.incoming(kFoo, s)) == std::vector<NodeId>{2});
  // "NodeTaintsPolicy honored": node-y's taint keeps its pod out of the count.
  SpreadRig honored;
  rig_with(honored, true);
  TopologySpread h = spread(label::kHostname, 1, WhenUnsatisfiable::DoNotSchedule);
  h.node_taints_policy = InclusionPolicy::Honor;
  CHECK(honored.allowed(honored.incoming(kFoo, constrained({h}))) == std::vector<NodeId>{2, 3});
  // "NodeTaintsPolicy ignored" (the default): it counts.
  SpreadRig taints_ignored;
  rig_with(taints_ignored, true);
  CHECK(taints_ignored.allowed(taints_ignored.incoming(
            kFoo, constrained({spread(label::kHostname, 1, WhenUnsatisfiable::DoNotSchedule)}))) ==
        std::vector<NodeId>{2});
}

// filtering_test.go TestMultipleConstraints.
TEST_CASE("PodTopologySpread filter: two constraints on zone and node - spreads = [3/3 2/1/0/3]",
          "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const NodeId x = rig.node("node-x", "zone2"), y = rig.node("node-y", "zone2");
  rig.place(a, kFoo, 2);
  rig.place(b, kFoo, 1);
  rig.place(y, kFoo, 3);
  const auto both = constrained({spread(label::kZone, 1, WhenUnsatisfiable::DoNotSchedule),
                                 spread(label::kHostname, 1, WhenUnsatisfiable::DoNotSchedule)});
  CHECK(rig.allowed(rig.incoming(kFoo, both)) == std::vector<NodeId>{x});
  // "... spreads = [3/4, 2/1/0/4]": no node.
  rig.place(y, kFoo, 1);
  CHECK(rig.allowed(rig.incoming(kFoo, both)).empty());
}

// Issue 23: three nodes in zones a/b/c, maxSkew 1 by zone; the real scheduler keeps the skew at
// most 1 and leaves the rest pending for Karpenter.
TEST_CASE("PodTopologySpread filter: a zone one ahead takes no more pods", "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("a", "us-east-1a"), b = rig.node("b", "us-east-1b");
  const NodeId c = rig.node("c", "us-east-1c");
  rig.place(a, kFoo, 2);
  rig.place(b, kFoo, 1);
  rig.place(c, kFoo, 2);
  const auto zone = constrained({spread(label::kZone, 1, WhenUnsatisfiable::DoNotSchedule)});
  CHECK(rig.allowed(rig.incoming(kFoo, zone)) == std::vector<NodeId>{b});
  (void)a;
  (void)c;
}

// scoring_test.go TestPodTopologySpreadScore (ScheduleAnyway, weight ln(domains + 2)).
TEST_CASE("PodTopologySpread score: one constraint on node - all 4 nodes are candidates",
          "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const NodeId c = rig.node("node-c", "zone1"), d = rig.node("node-d", "zone1");
  rig.place(a, kFoo, 2);
  rig.place(b, kFoo, 1);
  rig.place(d, kFoo, 3);
  const std::vector<NodeId> all{a, b, c, d};
  const auto host = [](int skew) {
    return constrained({spread(label::kHostname, skew, WhenUnsatisfiable::ScheduleAnyway)});
  };
  CHECK(rig.scores(rig.incoming(kFoo, host(1)), all) == std::vector<std::int64_t>{20, 60, 100, 0});
  CHECK(rig.scores(rig.incoming(kFoo, host(2)), all) == std::vector<std::int64_t>{33, 66, 100, 16});
}

TEST_CASE("PodTopologySpread score: one constraint on node - no existing pods", "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const auto host = constrained({spread(label::kHostname, 1, WhenUnsatisfiable::ScheduleAnyway)});
  CHECK(rig.scores(rig.incoming(kFoo, host), {a, b}) == std::vector<std::int64_t>{100, 100});
}

TEST_CASE("PodTopologySpread score: one constraint on zone - 3 out of 4 nodes are candidates",
          "[kube]") {
  // node-y failed the filters but its pods still count in zone2.
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const NodeId x = rig.node("node-x", "zone2"), y = rig.node("node-y", "zone2");
  rig.place(a, kFoo, 4);
  rig.place(b, kFoo, 2);
  rig.place(x, kFoo, 1);
  rig.place(y, kFoo, 3);
  const auto zone = constrained({spread(label::kZone, 1, WhenUnsatisfiable::ScheduleAnyway)});
  CHECK(rig.scores(rig.incoming(kFoo, zone), {a, b, x}) == std::vector<std::int64_t>{75, 75, 100});
  // "one constraint on node, 3 out of 4 nodes are candidates": ln(5) with three candidates.
  const auto host = constrained({spread(label::kHostname, 1, WhenUnsatisfiable::ScheduleAnyway)});
  CHECK(rig.scores(rig.incoming(kFoo, host), {a, b, x}) == std::vector<std::int64_t>{33, 83, 100});
}

TEST_CASE(
    "PodTopologySpread score: two Constraints on zone and node - 2 out of 4 nodes are "
    "candidates",
    "[kube]") {
  SpreadRig rig;
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone1");
  const NodeId x = rig.node("node-x", "zone2"), y = rig.node("node-y", "zone2");
  rig.place(a, kFoo, 2);
  rig.place(b, kFoo, 1);
  rig.place(x, kFoo, 2);
  rig.place(y, kFoo, 4);
  const auto both = constrained({spread(label::kZone, 1, WhenUnsatisfiable::ScheduleAnyway),
                                 spread(label::kHostname, 1, WhenUnsatisfiable::ScheduleAnyway)});
  CHECK(rig.scores(rig.incoming(kFoo, both), {a, x}) == std::vector<std::int64_t>{100, 63});
  (void)b;
  (void)y;
}

TEST_CASE(
    "PodTopologySpread score: a Deployment's pod without constraints gets the system "
    "defaults",
    "[kube]") {
  // "system defaulting, nodes don't have zone, pods match service", with a ReplicaSet as the
  // owner: hostname maxSkew 3 over the pod's ReplicaSet; nodes without a zone still score.
  SpreadRig rig;
  rig.workload = rig.cluster.add_workload(
      {.name = "web", .kind = WorkloadKind::Deployment, .namespace_name = "default"});
  const NodeId a = rig.node("node-a", ""), b = rig.node("node-b", "");
  const NodeId c = rig.node("node-c", ""), d = rig.node("node-d", "");
  rig.place(a, kFoo, 4);
  rig.place(b, kFoo, 3);
  rig.place(c, kFoo, 2);
  rig.place(d, kFoo, 1);
  PodSpec plain;
  plain.requests = pod_requests(100, 128);
  const Pod& pod = rig.incoming(kFoo, plain);
  CHECK(spread_constraints(rig.cluster, pod, {}).system_default);
  CHECK(rig.scores(pod, {a, b, c, d}) == std::vector<std::int64_t>{44, 66, 77, 100});

  // A bare pod gets no default spreading.
  SpreadRig bare;
  bare.node("node-a", "zone1");
  CHECK(spread_constraints(bare.cluster, bare.incoming(kFoo, plain), {}).soft.empty());
}

// PodTopologySpreadArgs with defaultingType List: a Deployment's pod without constraints gets the
// profile's, over its ReplicaSet's pods, DoNotSchedule ones filtering; an empty List gives none.
TEST_CASE("PodTopologySpread: a profile's List of default constraints filters a Deployment's pod",
          "[kube]") {
  SpreadRig rig;
  rig.workload = rig.cluster.add_workload(
      {.name = "web", .kind = WorkloadKind::Deployment, .namespace_name = "default"});
  const NodeId a = rig.node("node-a", "zone1"), b = rig.node("node-b", "zone2");
  rig.place(a, kBar, 2);  // the workload's pods, whatever their labels
  PodSpec plain;
  plain.requests = pod_requests(100, 128);
  const Pod& pod = rig.incoming(kFoo, plain);
  SpreadDefaults zone_list{.system = false,
                           .list = {{.topology_key = std::string(label::kZone),
                                     .max_skew = 1,
                                     .when_unsatisfiable = WhenUnsatisfiable::DoNotSchedule}}};
  const SpreadConstraints listed = spread_constraints(rig.cluster, pod, zone_list);
  CHECK(listed.hard.size() == 1);
  CHECK(listed.defaulted);
  CHECK_FALSE(listed.system_default);
  CHECK(rig.allowed(pod, zone_list) == std::vector<NodeId>{b});
  CHECK(rig.allowed(pod) == std::vector<NodeId>{a, b});  // the system defaults never filter
  CHECK(rig.allowed(pod, SpreadDefaults{.system = false}) == std::vector<NodeId>{a, b});
  CHECK(spread_constraints(rig.cluster, pod, SpreadDefaults{.system = false}).soft.empty());
}
