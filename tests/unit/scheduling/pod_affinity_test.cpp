// Pod affinity and anti-affinity in the solver, translated from Karpenter's
// pkg/controllers/provisioning/scheduling/topology_test.go (Context "Pod Affinity/Anti-Affinity").
// Upstream has three zones; the test catalog has two (us-east-1a, us-east-1b).
#include <catch2/catch.hpp>

#include "builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

const Labels kS2{{"security", "s2"}};
const Labels kTest{{"test", "test"}};

NodePool default_pool() {
  NodePool p = make_pool("default");
  p.requirements.add(std::string(label::kCapacityType), in({"on-demand"}));
  p.requirements.add(std::string(label::kInstanceFamily), in({"m5"}));
  return p;
}

PodAffinityTerm term(std::string_view key, const Labels& match) {
  return PodAffinityTerm{.topology_key = std::string(key),
                         .selector = LabelSelector{.match_labels = match}};
}

PodSpec with_affinity(PodSpec s, std::string_view key, const Labels& match) {
  s.pod_affinity.required.push_back(term(key, match));
  return s;
}

PodSpec with_anti(PodSpec s, std::string_view key, const Labels& match) {
  s.pod_anti_affinity.required.push_back(term(key, match));
  return s;
}

PodSpec in_zone(PodSpec s, std::string zone) {
  s.node_requirements.add(std::string(label::kZone), Requirement::single(std::move(zone)));
  return s;
}

PodSpec small() { return make_pod({.cpu_millis = 100, .memory_mib = 128}); }
PodSpec two_cpu() { return make_pod({.cpu_millis = 2000, .memory_mib = 128}); }

PodSpec hostname_spread(const Labels& match) {
  PodSpec s = small();
  s.topology_spread.push_back(TopologySpread{.topology_key = std::string(label::kHostname),
                                             .max_skew = 1,
                                             .selector = LabelSelector{.match_labels = match}});
  return s;
}

// The claim that holds `pod`, or -1.
int claim_of(const SolveResult& r, std::uint32_t pod) {
  for (std::size_t c = 0; c < r.claims.size(); ++c)
    for (std::uint32_t p : r.claims[c].pods)
      if (p == pod) return static_cast<int>(c);
  return -1;
}

std::vector<std::string> zones_of(const NewNodeClaim& claim) {
  const Requirement* z = claim.requirements.get(label::kZone);
  return z == nullptr ? std::vector<std::string>{} : z->values();
}

SolveResult solve(const std::vector<NodePool>& pools, Problem& problem, SolveInput extra = {},
                  std::span<const KubeletSizing> kubelet = {}) {
  static const Catalog catalog = small_catalog();
  std::vector<std::vector<Resources>> allocatable;
  for (const KubeletSizing& k : kubelet) allocatable.push_back(sized_allocatable(catalog, k));
  SchedulingContext ctx(catalog, pools, {}, allocatable);
  Scheduler scheduler(ctx);
  SolveInput input = problem.input();
  input.nodes = extra.nodes;
  input.bound_pods = extra.bound_pods;
  return scheduler.solve(input);
}

// An initialized m5.2xlarge of pool 0 in `zone`.
ExistingNode node_in(std::string_view name, std::string_view zone, const Requirements& labels) {
  static const Catalog catalog = small_catalog();
  ExistingNode n{.name = name,
                 .initialized = true,
                 .pool = 0,
                 .type = static_cast<std::uint32_t>(*catalog.index_of("m5.2xlarge")),
                 .zone = zone,
                 .labels = &labels};
  n.available = catalog.find("m5.2xlarge")->allocatable;
  return n;
}

}  // namespace

// upstream: "should schedule a pod with empty pod affinity and anti-affinity"
TEST_CASE("empty pod affinity and anti-affinity change nothing", "[scheduling]") {
  Problem problem;
  problem.add(small());
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.claims.size() == 1);
  CHECK(r.failures.empty());
}

// upstream: "should respect pod affinity (hostname)"
TEST_CASE("a pod with hostname affinity joins the claim of the pod it selects", "[scheduling]") {
  Problem problem;
  problem.add(hostname_spread(kTest), 10, kTest);
  const std::uint32_t target = problem.add(small(), 1, kS2);
  const std::uint32_t follower =
      problem.add(with_affinity(small(), label::kHostname, kS2), 1, Labels{});
  SolveResult r = solve({default_pool()}, problem);
  // The spread puts one test pod per claim; the target joins the emptiest, and the follower
  // skips the other nine for the target's.
  REQUIRE(r.claims.size() == 10);
  CHECK(r.failures.empty());
  CHECK(claim_of(r, target) == 0);
  CHECK(claim_of(r, follower) == 0);
  CHECK(r.claims[0].pods == std::vector<std::uint32_t>{0, target, follower});
}

// upstream: "should respect self pod affinity (hostname)"
TEST_CASE("pods with hostname affinity to themselves share one claim", "[scheduling]") {
  Problem problem;
  problem.add(with_affinity(small(), label::kHostname, kS2), 3, kS2);
  SolveResult r = solve({default_pool()}, problem);
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods.size() == 3);
}

// upstream: "should respect self pod affinity for first empty topology domain only (hostname)"
TEST_CASE("self hostname affinity bootstraps one host only", "[scheduling]") {
  NodePool pool = default_pool();
  pool.requirements.add(std::string(label::kInstanceType), in({"m5.large"}));
  const std::vector<KubeletSizing> kubelet{{.max_pods = 5}};
  Problem problem;
  problem.add(with_affinity(small(), label::kHostname, kS2), 10, kS2);
  SolveResult r = solve({pool}, problem, {}, kubelet);
  // The node holds five; the other five may not open a second host.
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods.size() == 5);
  CHECK(r.failures.size() == 5);
}

// upstream: "should respect self pod affinity for first empty topology domain only
// (hostname/constrained zones)"
TEST_CASE("a running pod of the group keeps self hostname affinity from bootstrapping",
          "[scheduling]") {
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes{node_in("node-a", "us-east-1a", labels)};
  nodes[0].available = Resources{};  // full: the new pods cannot join it
  const PodSpec running = with_affinity(in_zone(small(), "us-east-1a"), label::kHostname, kS2);
  std::vector<BoundPod> bound{{.labels = &kS2, .spec = &running, .namespace_name = "default"}};
  Problem problem;
  problem.add(with_affinity(in_zone(small(), "us-east-1b"), label::kHostname, kS2), 10, kS2);
  SolveResult r = solve({default_pool()}, problem, {.nodes = nodes, .bound_pods = bound});
  CHECK(r.claims.empty());
  CHECK(r.failures.size() == 10);
}

// upstream: "should respect self pod affinity (zone)"
TEST_CASE("pods with zone affinity to themselves pin their claims to one zone", "[scheduling]") {
  Problem problem;
  problem.add(with_affinity(small(), label::kZone, kS2), 3, kS2);
  SolveResult r = solve({default_pool()}, problem);
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods.size() == 3);
  CHECK(zones_of(r.claims[0]) == std::vector<std::string>{"us-east-1a"});
}

// upstream: "should not schedule pods with affinity to a non-existent pod"
TEST_CASE("pods with affinity to a pod that does not exist stay pending", "[scheduling]") {
  Problem problem;
  problem.add(with_affinity(small(), label::kZone, kS2), 10);
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.claims.empty());
  REQUIRE(r.failures.size() == 10);
  CHECK(r.failures[0].reason ==
        "nodepool default: pod affinity, topology spread or batch packing left no room");
}

// upstream: "should support pod affinity with zone topology (unconstrained target)"
TEST_CASE("zone affinity waits until its target's zone is known", "[scheduling]") {
  Problem first;
  const std::uint32_t target = first.add(small(), 1, kS2);
  first.add(with_affinity(small(), label::kZone, kS2), 10);
  SolveResult r = solve({default_pool()}, first);
  // The target's claim may launch in either zone, so no pod can be placed with it yet.
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods == std::vector<std::uint32_t>{target});
  CHECK(r.failures.size() == 10);

  // Once it runs in us-east-1b, they follow it there: onto its node, which has room.
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes{node_in("node-a", "us-east-1a", labels),
                                  node_in("node-b", "us-east-1b", labels)};
  std::vector<BoundPod> bound{{.labels = &kS2, .namespace_name = "default", .node = 1}};
  Problem second;
  second.add(with_affinity(small(), label::kZone, kS2), 10);
  r = solve({default_pool()}, second, {.nodes = nodes, .bound_pods = bound});
  CHECK(r.claims.empty());
  REQUIRE(r.placements.size() == 10);
  for (const Placement& p : r.placements) CHECK(p.node == 1);
}

// upstream: "should allow violation of preferred pod affinity"
TEST_CASE("a preferred pod affinity is given up when no pod matches", "[scheduling]") {
  Problem problem;
  problem.add(hostname_spread(kTest), 10, kTest);
  PodSpec pref = small();
  pref.pod_affinity.preferred.push_back(term(label::kHostname, kS2));
  pref.pod_affinity.preferred_weights.push_back(50);
  const std::uint32_t pod = problem.add(pref, 1, Labels{});
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.failures.empty());
  CHECK(claim_of(r, pod) >= 0);
}

// upstream: "should allow violation of preferred pod anti-affinity"
TEST_CASE("a preferred pod anti-affinity is given up when every zone is taken", "[scheduling]") {
  Problem problem;
  PodSpec spread = small();
  spread.topology_spread.push_back(
      TopologySpread{.topology_key = std::string(label::kZone),
                     .max_skew = 1,
                     .selector = LabelSelector{.match_labels = kTest}});
  problem.add(spread, 3, kTest);
  PodSpec pref = small();
  pref.pod_anti_affinity.preferred.push_back(term(label::kZone, kTest));
  pref.pod_anti_affinity.preferred_weights.push_back(50);
  problem.add(pref, 10, Labels{});
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.failures.empty());
}

// upstream: "should separate nodes using simple pod anti-affinity on hostname"
TEST_CASE("hostname anti-affinity separates a pod from the pod it selects", "[scheduling]") {
  Problem problem;
  const std::uint32_t avoider = problem.add(with_anti(small(), label::kHostname, kS2), 1, Labels{});
  const std::uint32_t target = problem.add(small(), 1, kS2);
  SolveResult r = solve({default_pool()}, problem);
  REQUIRE(r.claims.size() == 2);
  CHECK(claim_of(r, avoider) != claim_of(r, target));
}

// upstream: scheduling_benchmark_test.go makePodAntiAffinityPods ("all of these pods have
// anti-affinity to each other"), on hostname: N pods, N NodeClaims.
TEST_CASE("pods with hostname anti-affinity to themselves get a claim each", "[scheduling]") {
  Problem problem;
  problem.add(with_anti(small(), label::kHostname, kS2), 5, kS2);
  SolveResult r = solve({default_pool()}, problem);
  REQUIRE(r.claims.size() == 5);
  for (const NewNodeClaim& c : r.claims) CHECK(c.pods.size() == 1);
}

// upstream: "should not violate pod anti-affinity on zone"
TEST_CASE("zone anti-affinity fails when every zone holds a selected pod", "[scheduling]") {
  Problem problem;
  problem.add(in_zone(two_cpu(), "us-east-1a"), 1, kS2);
  problem.add(in_zone(two_cpu(), "us-east-1b"), 1, kS2);
  const std::uint32_t avoider = problem.add(with_anti(small(), label::kZone, kS2), 1, Labels{});
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.claims.size() == 2);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].pod == avoider);
}

// upstream: "should not violate pod anti-affinity on zone (other schedules first)"
TEST_CASE("zone anti-affinity counts a selected pod in every zone its claim may launch in",
          "[scheduling]") {
  Problem problem;
  problem.add(two_cpu(), 1, kS2);
  const std::uint32_t avoider = problem.add(with_anti(small(), label::kZone, kS2), 1, Labels{});
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.claims.size() == 1);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].pod == avoider);
}

// upstream: "should not violate pod anti-affinity on zone (inverse)"
TEST_CASE("required anti-affinity keeps the pods it selects out of its zones", "[scheduling]") {
  Problem problem;
  problem.add(with_anti(in_zone(two_cpu(), "us-east-1a"), label::kZone, kS2), 1, Labels{});
  problem.add(with_anti(in_zone(two_cpu(), "us-east-1b"), label::kZone, kS2), 1, Labels{});
  const std::uint32_t selected = problem.add(small(), 1, kS2);
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.claims.size() == 2);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].pod == selected);
}

// upstream: "should violate preferred pod anti-affinity on zone (inverse)"
TEST_CASE("preferred anti-affinity does not keep other pods away", "[scheduling]") {
  Problem problem;
  for (const char* zone : {"us-east-1a", "us-east-1b"}) {
    PodSpec s = in_zone(two_cpu(), zone);
    s.pod_anti_affinity.preferred.push_back(term(label::kZone, kS2));
    s.pod_anti_affinity.preferred_weights.push_back(10);
    problem.add(s, 1, Labels{});
  }
  problem.add(small(), 1, kS2);
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.failures.empty());
}

// upstream: "should not violate pod anti-affinity on zone (inverse w/existing nodes)"
TEST_CASE("running pods' required anti-affinity keeps a selected pod out", "[scheduling]") {
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes{node_in("node-a", "us-east-1a", labels),
                                  node_in("node-b", "us-east-1b", labels)};
  const PodSpec anti = with_anti(two_cpu(), label::kZone, kS2);
  const Labels none;
  std::vector<BoundPod> bound{
      {.labels = &none, .spec = &anti, .namespace_name = "default", .node = 0},
      {.labels = &none, .spec = &anti, .namespace_name = "default", .node = 1}};
  Problem problem;
  problem.add(small(), 1, kS2);
  SolveResult r = solve({default_pool()}, problem, {.nodes = nodes, .bound_pods = bound});
  CHECK(r.placements.empty());
  CHECK(r.claims.empty());
  CHECK(r.failures.size() == 1);

  // A pod of another namespace is not selected: the term looks in its own pod's namespace.
  problem.pods[0].namespace_name = "other";
  r = solve({default_pool()}, problem, {.nodes = nodes, .bound_pods = bound});
  REQUIRE(r.placements.size() == 1);
  CHECK(r.placements[0].node == 0);
}

// upstream: "should filter pod affinity topologies by namespace, matching pods namespace list"
TEST_CASE("an affinity term's namespaces widen where it looks", "[scheduling]") {
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes{node_in("node-a", "us-east-1a", labels),
                                  node_in("node-b", "us-east-1b", labels)};
  std::vector<BoundPod> bound{{.labels = &kS2, .namespace_name = "other", .node = 1}};
  PodSpec follower = with_affinity(small(), label::kHostname, kS2);
  Problem same_namespace;
  same_namespace.add(follower, 1, Labels{});
  SolveResult r = solve({default_pool()}, same_namespace, {.nodes = nodes, .bound_pods = bound});
  CHECK(r.placements.empty());
  CHECK(r.failures.size() == 1);

  follower.pod_affinity.required[0].namespaces = {"other"};
  Problem listed;
  listed.add(follower, 1, Labels{});
  r = solve({default_pool()}, listed, {.nodes = nodes, .bound_pods = bound});
  REQUIRE(r.placements.size() == 1);
  CHECK(r.placements[0].node == 1);
}

// preferences.go: preferred pod affinity is relaxed before preferred node affinity, so the pod
// still gets the zone it prefers once the pod it wanted to be near turns out not to exist.
TEST_CASE("preferred pod affinity is relaxed before preferred node affinity", "[scheduling]") {
  PodSpec s = small();
  s.pod_affinity.preferred.push_back(term(label::kHostname, kS2));
  s.pod_affinity.preferred_weights.push_back(100);
  s.preferred_node_requirements = Requirements{};
  s.preferred_node_requirements->add(std::string(label::kZone), Requirement::single("us-east-1b"));
  Problem problem;
  problem.add(s);
  SolveResult r = solve({default_pool()}, problem);
  REQUIRE(r.claims.size() == 1);
  CHECK(zones_of(r.claims[0]) == std::vector<std::string>{"us-east-1b"});
}

// preferences.go removePreferredPodAntiAffinityTerm: the heaviest term goes first, so the lighter
// hostname term (which can be met) still separates the pods. Karpenter's benchmark "preference"
// pods: zone anti-affinity (weight 10, impossible past the first pod, whose claim may launch in
// either zone) and hostname anti-affinity (weight 1).
TEST_CASE("preferred anti-affinity terms are relaxed heaviest first", "[scheduling]") {
  PodSpec s = small();
  s.pod_anti_affinity.preferred = {term(label::kZone, kS2), term(label::kHostname, kS2)};
  s.pod_anti_affinity.preferred_weights = {10, 1};
  Problem problem;
  problem.add(s, 4, kS2);
  SolveResult r = solve({default_pool()}, problem);
  CHECK(r.failures.empty());
  // Dropping the lighter term first would leave the zone term, which no pod can meet, and then
  // nothing: all four on one claim. Heaviest first keeps one pod per host.
  REQUIRE(r.claims.size() == 4);
  for (const NewNodeClaim& c : r.claims) CHECK(c.pods.size() == 1);
}

// The solver keeps its buffers between solves (Scheduler's header): a second solve must not see
// the first one's claims, variants or groups.
TEST_CASE("a Scheduler reused across solves answers as a fresh one", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{default_pool()};
  SchedulingContext ctx(catalog, pools, {});
  Problem apart;
  apart.add(with_anti(small(), label::kHostname, kS2), 3, kS2);
  Problem together;
  together.add(with_affinity(small(), label::kZone, kS2), 4, kS2);
  together.add(make_pod({.cpu_millis = 1500, .memory_mib = 1024}), 2);
  auto shape = [&](const SolveResult& r) {
    std::vector<std::pair<std::vector<std::uint32_t>, std::vector<std::string>>> out;
    for (const NewNodeClaim& c : r.claims) out.emplace_back(c.pods, type_names(catalog, c));
    return out;
  };
  Scheduler reused(ctx);
  reused.solve(apart.input());
  const SolveResult again = reused.solve(together.input());
  Scheduler fresh(ctx);
  const SolveResult once = fresh.solve(together.input());
  CHECK(shape(again) == shape(once));
  CHECK(shape(again).size() == 1);  // the affinity pods pin the big pods' claim to a zone
  CHECK(shape(reused.solve(apart.input())).size() == 3);
}

// upstream: "should support pod anti-affinity with a zone topology": the first batch places one
// pod (its claim may launch in any zone, so it blocks them all); once it runs in a zone, the next
// batch places one more in the other zone; then nothing more fits.
TEST_CASE("zone anti-affinity to themselves places one pod per batch until zones run out",
          "[scheduling]") {
  const PodSpec anti = with_anti(small(), label::kZone, kS2);
  Problem first;
  first.add(anti, 3, kS2);
  SolveResult r = solve({default_pool()}, first);
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods.size() == 1);
  CHECK(r.failures.size() == 2);

  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes{node_in("node-a", "us-east-1a", labels)};
  std::vector<BoundPod> bound{{.labels = &kS2, .spec = &anti, .namespace_name = "default"}};
  Problem second;
  second.add(anti, 3, kS2);
  r = solve({default_pool()}, second, {.nodes = nodes, .bound_pods = bound});
  CHECK(r.placements.empty());  // node-a has room, but its zone holds the first pod
  REQUIRE(r.claims.size() == 1);
  CHECK(zones_of(r.claims[0]) == std::vector<std::string>{"us-east-1b"});
  CHECK(r.failures.size() == 2);

  nodes.push_back(node_in("node-b", "us-east-1b", labels));
  bound.push_back({.labels = &kS2, .spec = &anti, .namespace_name = "default", .node = 1});
  Problem third;
  third.add(anti, 3, kS2);
  r = solve({default_pool()}, third, {.nodes = nodes, .bound_pods = bound});
  CHECK(r.placements.empty());
  CHECK(r.claims.empty());
  CHECK(r.failures.size() == 3);
}

// topology.go AddRequirements: the pod domains of an affinity term are the pod's strict
// requirements, without its preferred node affinity. A pod of a self-affine group preferring
// us-east-1a may not start the group over there while a member runs in us-east-1b: it fails,
// gives up the preference, and joins the member's zone.
TEST_CASE("zone affinity finds its group in zones the pod allows but does not prefer",
          "[scheduling]") {
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes{node_in("node-b", "us-east-1b", labels)};
  nodes[0].available = Resources{};  // full
  const PodSpec member = with_affinity(small(), label::kZone, kS2);
  std::vector<BoundPod> bound{{.labels = &kS2, .spec = &member, .namespace_name = "default"}};
  PodSpec s = member;
  s.preferred_node_requirements = Requirements{};
  s.preferred_node_requirements->add(std::string(label::kZone), Requirement::single("us-east-1a"));
  Problem problem;
  problem.add(s, 1, kS2);
  SolveResult r = solve({default_pool()}, problem, {.nodes = nodes, .bound_pods = bound});
  REQUIRE(r.claims.size() == 1);
  CHECK(zones_of(r.claims[0]) == std::vector<std::string>{"us-east-1b"});
}

// Pods kept apart try only the nodes that hold none of their group, made once per solve (issue
// 25, item 8: a walk over every node per pod took minutes for 3,000 pods).
TEST_CASE("pods apart take the nodes free of their group, one each, then new claims",
          "[scheduling]") {
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  std::vector<ExistingNode> nodes;
  for (const char* name : {"node-a", "node-b", "node-c", "node-d", "node-e"})
    nodes.push_back(node_in(name, "us-east-1a", labels));
  nodes[3].available = Resources{};  // free of the group, but full
  const PodSpec apart = with_anti(small(), label::kHostname, kS2);
  std::vector<BoundPod> bound{
      {.labels = &kS2, .spec = &apart, .namespace_name = "default", .node = 1}};
  Problem problem;
  problem.add(apart, 5, kS2);
  SolveResult r = solve({default_pool()}, problem, {.nodes = nodes, .bound_pods = bound});
  std::vector<std::uint32_t> placed;
  for (const Placement& p : r.placements) placed.push_back(p.node);
  std::sort(placed.begin(), placed.end());
  CHECK(placed == std::vector<std::uint32_t>{0, 2, 4});
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods.size() == 1);
  CHECK(r.claims[1].pods.size() == 1);
  CHECK(r.failures.empty());
}
