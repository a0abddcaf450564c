#include <catch2/catch.hpp>

#include "builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

NodePool on_demand_pool(std::string name, std::vector<std::string> families, int weight = 0) {
  NodePool p = make_pool(std::move(name), weight);
  p.requirements.add(std::string(label::kCapacityType), in({"on-demand"}));
  p.requirements.add(std::string(label::kInstanceFamily), in(std::move(families)));
  return p;
}

SolveResult solve(const Catalog& catalog, const std::vector<NodePool>& pools, Problem& problem,
                  std::vector<SchedulingContext::DaemonSet> daemonsets = {},
                  SolveInput overrides = {}) {
  SchedulingContext ctx(catalog, pools, daemonsets);
  Scheduler scheduler(ctx);
  SolveInput input = problem.input();
  input.nodes = overrides.nodes;
  input.offering_usable = overrides.offering_usable;
  return scheduler.solve(input);
}

}  // namespace

TEST_CASE("a pod gets a NodeClaim whose cheapest option is the cheapest type that fits",
          "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("default", {"m5", "c5"})};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1500, .memory_mib = 2048}));
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 1);
  CHECK(type_names(catalog, r.claims[0]) ==
        std::vector<std::string>{"c5.large", "m5.large", "m5.xlarge", "m5.2xlarge"});
  CHECK(r.failures.empty());
}

TEST_CASE("DaemonSet overhead rules out a type the pod alone would fit", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("default", {"m5", "c5"})};
  PodSpec ds = make_pod({.cpu_millis = 500, .memory_mib = 256});
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1500, .memory_mib = 2048}));
  SolveResult r = solve(catalog, pools, problem, {{.spec = &ds}});
  REQUIRE(r.claims.size() == 1);
  // 1500m + 500m exceeds the 1930m allocatable of the 2-vCPU types.
  CHECK(type_names(catalog, r.claims[0]) == std::vector<std::string>{"m5.xlarge", "m5.2xlarge"});
  CHECK(r.claims[0].requests.cpu_millis() == 2000);
}

TEST_CASE("max pods caps how many pods share a node", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool pool = make_pool("small");
  pool.requirements.add(std::string(label::kInstanceType), in({"m5.large"}));
  Problem problem;
  problem.add(make_pod({.cpu_millis = 10, .memory_mib = 16}), 30);
  SolveResult r = solve(catalog, {pool}, problem);
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods.size() == 29);  // m5.large allows 29 pods (ENI limit)
  CHECK(r.claims[1].pods.size() == 1);
}

TEST_CASE("NodePools are tried by weight, a nodeSelector can name a lower-weight pool",
          "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("general", {"m5"}, 10),
                              on_demand_pool("compute", {"c5"}, 50)};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 500, .memory_mib = 512}));
  PodSpec pinned = make_pod({.cpu_millis = 500, .memory_mib = 512});
  pinned.node_requirements.add(std::string(label::kNodePool), in({"general"}));
  problem.add(pinned);
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 2);
  CHECK(pools[r.claims[0].pool].name == "compute");
  CHECK(pools[r.claims[1].pool].name == "general");
  CHECK(type_names(catalog, r.claims[1]).front() == "m5.large");
}

TEST_CASE("equal weights fall back to name descending", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("alpha", {"m5"}), on_demand_pool("beta", {"c5"})};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 500, .memory_mib = 512}));
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 1);
  CHECK(pools[r.claims[0].pool].name == "beta");
}

TEST_CASE("limits count capacity and charge each new claim its largest option", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool pool = on_demand_pool("limited", {"m5"});
  Resources limit;
  limit[resource::kCpu] = 6000;
  pool.limits.resources = limit;
  pool.limits.set_mask[resource::kCpu] = 1;
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 512}), 5);
  SolveResult r = solve(catalog, {pool}, problem);
  // 6 vCPU rules out m5.2xlarge; the first claim charges 4 vCPU (m5.xlarge), leaving room
  // for one m5.large and nothing after it.
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods.size() == 3);
  CHECK(type_names(catalog, r.claims[0]) == std::vector<std::string>{"m5.xlarge"});
  CHECK(type_names(catalog, r.claims[1]) == std::vector<std::string>{"m5.large"});
  CHECK(r.failures.size() == 1);
}

TEST_CASE("a GPU pool's taint keeps pods without the toleration off it", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool gpu = on_demand_pool("gpu", {"g4dn", "g5"}, 100);
  gpu.taints.push_back(
      Taint{.key = "nvidia.com/gpu", .value = "true", .effect = TaintEffect::NoSchedule});
  std::vector<NodePool> pools{gpu, on_demand_pool("cpu", {"m5"})};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 500, .memory_mib = 512}));
  PodSpec trainer = make_pod({.cpu_millis = 2000, .memory_mib = 8192, .gpus = 1});
  trainer.tolerations.push_back(
      Toleration{.key = "nvidia.com/gpu", .op = TolerationOperator::Exists});
  problem.add(trainer);
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 2);
  CHECK(pools[r.claims[0].pool].name == "gpu");
  CHECK(type_names(catalog, r.claims[0]) ==
        std::vector<std::string>{"g4dn.xlarge", "g5.xlarge", "g5.2xlarge", "g5.12xlarge"});
  CHECK(pools[r.claims[1].pool].name == "cpu");
}

TEST_CASE("a GPU pod without a GPU pool stays pending", "[scheduling]") {
  Catalog catalog = small_catalog();
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 1024, .gpus = 1}));
  SolveResult r = solve(catalog, {on_demand_pool("cpu", {"m5"})}, problem);
  CHECK(r.claims.empty());
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].pod == 0);
}

TEST_CASE("pods go to an in-flight node before a new NodeClaim", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("default", {"m5"})};
  Requirements labels = Requirements::from_labels({{std::string(label::kNodePool), "default"}});
  ExistingNode inflight{.name = "default-abcde",
                        .initialized = false,
                        .pool = 0,
                        .type = static_cast<std::uint32_t>(*catalog.index_of("m5.xlarge")),
                        .zone = "us-east-1a",
                        .labels = &labels};
  inflight.available = catalog.find("m5.xlarge")->allocatable;
  std::vector<ExistingNode> nodes{inflight};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 1024}), 3);
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 1024}));
  SolveResult r = solve(catalog, pools, problem, {}, SolveInput{.nodes = nodes});
  // 3920m allocatable takes three 1000m pods; the fourth needs a new claim.
  CHECK(r.placements.size() == 3);
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods == std::vector<std::uint32_t>{3});
}

TEST_CASE("minValues rejects a claim that would leave too few distinct values", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool pool = make_pool("diverse");
  pool.requirements.add(std::string(label::kCapacityType), in({"on-demand"}));
  Requirement families = in({"m5", "c5"});
  families.set_min_values(2);
  pool.requirements.add(std::string(label::kInstanceFamily), families);
  Problem fits_both;
  fits_both.add(make_pod({.cpu_millis = 1500, .memory_mib = 3000}));
  CHECK(solve(catalog, {pool}, fits_both).claims.size() == 1);
  Problem m5_only;  // 3.5 GiB exceeds c5.large's 3114 MiB allocatable: one family left
  m5_only.add(make_pod({.cpu_millis = 1500, .memory_mib = 3584}));
  SolveResult r = solve(catalog, {pool}, m5_only);
  CHECK(r.claims.empty());
  CHECK(r.failures.size() == 1);
}

TEST_CASE("unavailable offerings push the claim to the next cheapest type", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("gpu", {"g4dn", "g5"})};
  SchedulingContext ctx(catalog, pools, {});
  std::vector<std::uint8_t> usable(ctx.offering_count(), 1);
  auto g4dn = static_cast<std::uint32_t>(*catalog.index_of("g4dn.xlarge"));
  for (std::size_t i = 0; i < catalog.types()[g4dn].offerings.size(); ++i)
    usable[ctx.offering_index(g4dn, i)] = 0;
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 1024, .gpus = 1}));
  SolveResult r = solve(catalog, pools, problem, {}, SolveInput{.offering_usable = usable});
  REQUIRE(r.claims.size() == 1);
  CHECK(type_names(catalog, r.claims[0]).front() == "g5.xlarge");
}

TEST_CASE("two one-GPU pods in one batch share a multi-GPU claim, as Karpenter does",
          "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("gpu", {"g5"})};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 1024, .gpus = 1}), 2);
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 1);
  CHECK(type_names(catalog, r.claims[0]) == std::vector<std::string>{"g5.12xlarge"});
}

TEST_CASE("zone spread pins claims to the least-used zone", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("default", {"m5"})};
  PodSpec web = make_pod({.cpu_millis = 500, .memory_mib = 512});
  web.topology_spread.push_back(
      TopologySpread{.topology_key = std::string(label::kZone),
                     .max_skew = 1,
                     .selector = LabelSelector{.match_labels = {{"app", "web"}}}});
  Labels web_labels{{"app", "web"}};
  Problem problem;
  problem.add(web, 4);
  for (auto& p : problem.pods) p.labels = &web_labels;
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods.size() == 2);
  CHECK(r.claims[1].pods.size() == 2);
  CHECK(r.claims[0].requirements.get(label::kZone)->values() ==
        std::vector<std::string>{"us-east-1a"});
  CHECK(r.claims[1].requirements.get(label::kZone)->values() ==
        std::vector<std::string>{"us-east-1b"});
}

// karpenter topology_test.go "should respect minDomains constraints": with fewer zones than
// minDomains the global minimum is 0, so each zone takes at most maxSkew pods.
TEST_CASE("zone spread with more minDomains than zones leaves pods pending", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("default", {"m5"})};
  PodSpec web = make_pod({.cpu_millis = 500, .memory_mib = 512});
  web.topology_spread.push_back(
      TopologySpread{.topology_key = std::string(label::kZone),
                     .max_skew = 1,
                     .selector = LabelSelector{.match_labels = {{"app", "web"}}},
                     .min_domains = 3});
  Labels web_labels{{"app", "web"}};
  Problem problem;
  problem.add(web, 3);
  for (auto& p : problem.pods) p.labels = &web_labels;
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods.size() == 1);
  CHECK(r.claims[1].pods.size() == 1);
  CHECK(r.failures.size() == 1);

  // minDomains 2 is met by the two zones: all three pods are placed, 2 and 1.
  web.topology_spread[0].min_domains = 2;
  Problem met;
  met.add(web, 3);
  for (auto& p : met.pods) p.labels = &web_labels;
  SolveResult all = solve(catalog, pools, met);
  CHECK(all.failures.empty());
}

// A constraint without a labelSelector selects no pod (LabelSelectorAsSelector(nil) is Nothing):
// it never holds a pod back.
TEST_CASE("zone spread without a labelSelector counts no pod", "[scheduling]") {
  Catalog catalog = small_catalog();
  std::vector<NodePool> pools{on_demand_pool("default", {"m5"})};
  PodSpec web = make_pod({.cpu_millis = 500, .memory_mib = 512});
  web.topology_spread.push_back(
      TopologySpread{.topology_key = std::string(label::kZone), .max_skew = 1, .min_domains = 3});
  Labels web_labels{{"app", "web"}};
  Problem problem;
  problem.add(web, 3);
  for (auto& p : problem.pods) p.labels = &web_labels;
  SolveResult r = solve(catalog, pools, problem);
  CHECK(r.failures.empty());
}

TEST_CASE("pods are packed largest CPU request first", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool pool = make_pool("one-size");
  pool.requirements.add(std::string(label::kInstanceType), in({"m5.large"}));
  Problem problem;
  problem.add(make_pod({.cpu_millis = 300, .memory_mib = 128}));
  problem.add(make_pod({.cpu_millis = 1200, .memory_mib = 128}));
  problem.add(make_pod({.cpu_millis = 700, .memory_mib = 128}));
  SolveResult r = solve(catalog, {pool}, problem);
  // 1200 + 700 = 1900m fills the first node (1930m allocatable); the 300m pod opens a second.
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods == std::vector<std::uint32_t>{1, 2});
  CHECK(r.claims[1].pods == std::vector<std::uint32_t>{0});
}

TEST_CASE("a pending pod's reason names each NodePool's objection", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool gpu = on_demand_pool("gpu", {"g5"}, 10);
  gpu.taints.push_back(
      Taint{.key = "nvidia.com/gpu", .value = "true", .effect = TaintEffect::NoSchedule});
  std::vector<NodePool> pools{gpu, on_demand_pool("cpu", {"m5"})};
  Problem problem;
  problem.add(make_pod({.cpu_millis = 1000, .memory_mib = 1024, .gpus = 1}));
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].reason ==
        "nodepool gpu: did not tolerate nvidia.com/gpu=true:NoSchedule; nodepool cpu: no instance "
        "type has room "
        "for cpu=1 memory=1Gi gpus=1 plus daemonset overhead");
}

// The reason names the requirement that excludes a pool, never a resource shortfall that is not
// the cause (issue 25, item 3). Upstream: scheduling suite_test.go, Context "Custom Labels"
// "should not schedule pods that have conflicting node selectors", "... with undefined key",
// "... that have conflicting requirements", and Context "Well Known Labels" "should not schedule
// if node selector outside of NodePool constraints".
namespace {

std::string only_reason(const std::vector<NodePool>& pools, const PodSpec& pod) {
  Catalog catalog = small_catalog();
  Problem problem;
  problem.add(pod);
  SolveResult r = solve(catalog, pools, problem);
  REQUIRE(r.failures.size() == 1);
  return r.failures[0].reason;
}

PodSpec selecting(std::string key, std::string value, PodArgs args = {}) {
  PodSpec pod = make_pod(args);
  pod.node_selector.add(key, Requirement::single(value));
  pod.node_requirements.add(key, Requirement::single(std::move(value)));
  return pod;
}

}  // namespace

TEST_CASE("a reason names the pod's requirement the NodePool's requirements and labels exclude",
          "[scheduling]") {
  NodePool labelled = on_demand_pool("default", {"m5"});
  labelled.labels["test-key"] = "test-value";
  CHECK(only_reason({labelled}, selecting("test-key", "different-value")) ==
        "nodepool default: nodeSelector test-key=different-value is outside the NodePool's "
        "test-key In [test-value]");
  CHECK(only_reason({on_demand_pool("default", {"m5"})}, selecting("test-key", "test-value")) ==
        "nodepool default: nodeSelector test-key=test-value: label \"test-key\" is not defined by "
        "the NodePool");
  PodSpec affinity = make_pod({});
  affinity.node_requirements.add("test-key", in({"another-value"}));
  CHECK(only_reason({labelled}, affinity) ==
        "nodepool default: node affinity test-key In [another-value] is outside the NodePool's "
        "test-key In [test-value]");
  NodePool zonal = on_demand_pool("default", {"m5"});
  zonal.requirements.add(std::string(label::kZone), in({"us-east-1a"}));
  CHECK(only_reason({zonal}, selecting(std::string(label::kZone), "us-east-1b")) ==
        "nodepool default: nodeSelector topology.kubernetes.io/zone=us-east-1b is outside the "
        "NodePool's topology.kubernetes.io/zone In [us-east-1a]");
  // A long list is cut after five values.
  NodePool listed = make_pool("gpu");
  listed.requirements.add(
      std::string(label::kInstanceType),
      in({"g5.xlarge", "g5.2xlarge", "g5.12xlarge", "g4dn.xlarge", "m5.large", "m5.xlarge"}));
  CHECK(only_reason({listed}, selecting(std::string(label::kInstanceType), "p4d.24xlarge")) ==
        "nodepool gpu: nodeSelector node.kubernetes.io/instance-type=p4d.24xlarge is outside the "
        "NodePool's node.kubernetes.io/instance-type In [g4dn.xlarge, g5.12xlarge, g5.2xlarge, "
        "g5.xlarge, m5.large, …]");
}

TEST_CASE("a reason names the requirement that leaves a NodePool no instance type, not resources",
          "[scheduling]") {
  // The pool allows g5 by family; the pod asks for a type by name: the keys differ, so the
  // requirements are compatible, yet no type of the pool carries that name. It was reported as
  // "no instance type has room for cpu=100m memory=128Mi gpus=0 plus daemonset overhead".
  const std::vector<NodePool> g5{on_demand_pool("gpu", {"g5"})};
  CHECK(only_reason(g5, selecting(std::string(label::kInstanceType), "m5.large")) ==
        "nodepool gpu: nodeSelector node.kubernetes.io/instance-type=m5.large is outside the "
        "NodePool's instance types (node.kubernetes.io/instance-type In [g5.12xlarge, g5.2xlarge, "
        "g5.xlarge])");
  PodSpec cpus = make_pod({});
  cpus.node_requirements.add(std::string(label::kInstanceCpu),
                             Requirement::make(Operator::Gt, {"48"}));
  CHECK(only_reason(g5, cpus) ==
        "nodepool gpu: node affinity karpenter.k8s.aws/instance-cpu >=49 is outside the "
        "NodePool's instance types (karpenter.k8s.aws/instance-cpu In [4, 8, 48])");
  // Two keys that each leave some type, but no type both.
  PodSpec both = selecting(std::string(label::kGpuName), "a10g");
  both.node_selector.add(std::string(label::kInstanceSize), Requirement::single("large"));
  both.node_requirements.add(std::string(label::kInstanceSize), Requirement::single("large"));
  CHECK(only_reason({on_demand_pool("mixed", {"m5", "g5"})}, both) ==
        "nodepool mixed: nodeSelector karpenter.k8s.aws/instance-gpu-name=a10g and nodeSelector "
        "karpenter.k8s.aws/instance-size=large together exclude every instance type of the "
        "NodePool");
  // A resource shortfall is still named when it is the cause.
  CHECK(only_reason(g5, selecting(std::string(label::kInstanceType), "g5.xlarge", {.gpus = 2})) ==
        "nodepool gpu: no instance type has room for cpu=100m memory=128Mi gpus=2 plus daemonset "
        "overhead");
}

TEST_CASE("a GPU-memory reason gives the usable memory of the pool's largest GPU", "[scheduling]") {
  // A model that needs 16955 MiB per GPU (nodepool_checks adds this requirement) on a pool of
  // T4s, whose usable memory the catalog gives as 16384 MiB.
  PodSpec model = make_pod({.cpu_millis = 1000, .memory_mib = 1024, .gpus = 1});
  model.node_requirements.add(std::string(label::kGpuMemory),
                              Requirement::make(Operator::Gt, {"16954"}));
  CHECK(only_reason({on_demand_pool("t4", {"g4dn"})}, model) ==
        "nodepool t4: node affinity karpenter.k8s.aws/instance-gpu-memory >=16955 is outside the "
        "NodePool's instance types: their largest GPU has 16384 MiB usable (t4 on g4dn.xlarge)");
  CHECK(only_reason({on_demand_pool("cpu", {"m5"})}, model) ==
        "nodepool cpu: node affinity karpenter.k8s.aws/instance-gpu-memory >=16955 is outside the "
        "NodePool's instance types: none has a GPU");
}

TEST_CASE("an EC2NodeClass maxPods override caps pods per node", "[scheduling]") {
  Catalog catalog = small_catalog();
  NodePool pool = make_pool("small");
  pool.requirements.add(std::string(label::kInstanceType), in({"m5.large"}));
  std::vector<NodePool> pools{pool};
  const std::vector<std::vector<Resources>> allocatable{
      sized_allocatable(catalog, {.max_pods = 10})};
  SchedulingContext ctx(catalog, pools, {}, allocatable);
  Scheduler scheduler(ctx);
  Problem problem;
  problem.add(make_pod({.cpu_millis = 10, .memory_mib = 16}), 11);
  SolveResult r = scheduler.solve(problem.input());
  REQUIRE(r.claims.size() == 2);
  CHECK(r.claims[0].pods.size() == 10);
  CHECK(ctx.pools()[0].allocatable[*catalog.index_of("m5.large")].pods() == 10);
}
