// Capacity and prices over a run (issue 9, items 3 and 4): a scripted or recorded capacity feeds
// Karpenter's insufficient-capacity path, so launches spill to the next tier or fall back to
// on-demand; a recorded spot price moves billing and the launch choice.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::string pool(const std::string& name, int weight, const std::string& capacity_types) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: )" +
         name + R"(}
spec:
  weight: )" +
         std::to_string(weight) + R"(
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["g5.xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [)" +
         capacity_types + R"(]}
---
)";
}

const std::string kRest = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {role: test}
---
apiVersion: v1
kind: Pod
metadata:
  name: worker
  # Kept off consolidation, which would try a cheaper spot replacement each time the
  # insufficient-capacity cache expires.
  annotations: {fleetsim.io/duration: 1h, karpenter.sh/do-not-disrupt: "true"}
spec:
  restartPolicy: Never
  containers:
    - name: c
      resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
)";

// g5.xlarge spot has no capacity left in any zone from the start.
const std::string kNoSpot =
    "events:\n  - {at: 0s, capacity: {instance_type: g5.xlarge, capacity_type: spot, count: 0}}\n";

struct Launches final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::NodeLaunched) launched.push_back(cluster.node(e.node));
    if (e.kind == EventKind::NodeTerminated) {
      terminated.push_back(e.time);
      billing_stopped.push_back(std::min(e.time, cluster.node(e.node).billing_stopped_at));
    }
    if (e.kind == EventKind::LaunchFailed) ++failed;
    if (e.kind == EventKind::SpotPriceChanged) prices.push_back(e.price);
  }
  std::vector<Node> launched;
  std::vector<SimTime> terminated;
  std::vector<SimTime> billing_stopped;  // the instance shutting down, or gone
  int failed = 0;
  std::vector<double> prices;
};

// `events` is the scenario's rest (events:, spot:); `trace` is written as trace.csv.
struct CapacityRun {
  CapacityRun(const std::string& pools, const std::string& events, const std::string& trace = "")
      : dir("capacity") {
    dir.write("manifests.yaml", pools + kRest);
    if (!trace.empty()) dir.write("trace.csv", trace);
    const auto file = dir.write(
        "scenario.yaml", "name: capacity\nduration: 2h\nmanifests: [manifests.yaml]\n" + events);
    const ScenarioConfig config =
        load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&launches}});
  }
  test::TempDir dir;
  Launches launches;
  RunResult result;
};

}  // namespace

TEST_CASE("capacity dropping to zero sends the next launch to the next tier", "[runner]") {
  const CapacityRun r(pool("g5-spot", 100, "spot") + pool("g5-on-demand", 10, "on-demand"),
                      kNoSpot);
  REQUIRE(r.launches.launched.size() == 1);
  CHECK(r.launches.launched[0].owner_name() == "g5-on-demand");
  CHECK(r.launches.launched[0].capacity_type == CapacityType::OnDemand);
  CHECK(r.launches.failed == 1);  // the spot tier's NodeClaim ran into the shortage first
  REQUIRE(r.result.spot);
  CHECK(r.result.spot->capacity_changes == 5);                 // one per zone of g5.xlarge spot
  CHECK(r.result.spot->launches_fell_back_to_on_demand == 0);  // another pool, not a fallback

  // Without the shortage the spot tier launches.
  const CapacityRun plain(pool("g5-spot", 100, "spot") + pool("g5-on-demand", 10, "on-demand"), "");
  REQUIRE(plain.launches.launched.size() == 1);
  CHECK(plain.launches.launched[0].owner_name() == "g5-spot");
}

// Karpenter AWS pkg/providers/instancetype/suite_test.go, Context "Insufficient Capacity Error
// Cache": It("should launch on-demand capacity if flexible to both spot and on-demand, but spot
// is unavailable"): the first launch asks for spot and fails, the offerings go into the cache, and
// the next launches on-demand.
TEST_CASE("a NodeClaim that allows both capacity types falls back to on-demand", "[runner]") {
  const CapacityRun r(pool("gpu", 10, "spot, on-demand"), kNoSpot);
  REQUIRE_FALSE(r.launches.launched.empty());
  const Node& node = r.launches.launched.back();
  CHECK(node.capacity_type == CapacityType::OnDemand);
  CHECK(node.spot_fallback);
  CHECK(r.launches.failed == 1);
  REQUIRE(r.result.spot);
  CHECK(r.result.spot->launches_fell_back_to_on_demand == 1);
}

TEST_CASE("capacity events: bad input names the field", "[runner]") {
  test::TempDir dir("capacity-errors");
  dir.write("manifests.yaml", pool("gpu", 10, "spot") + kRest);
  const auto error = [&](const std::string& event) {
    const auto file = dir.write("scenario.yaml",
                                "name: e\nduration: 1h\nmanifests: [manifests.yaml]\nevents:\n"
                                "  - {at: 1m, capacity: " +
                                    event + "}\n");
    const std::string e = test::config_error([&] {
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    });
    return e.substr(e.find(':', file.string().size()) + 1);
  };
  CHECK(error("{instance_type: g5.xlarge, count: -1}") ==
        "5:58: events[0].capacity.count: -1 is out of range [0, 1000000]");
  CHECK(error("{instance_type: g5.xlarge, zone: us-east-1c, count: 0}") ==
        "5:57: events[0].capacity.zone: g5.xlarge has no spot offering in zone \"us-east-1c\" "
        "(zones: us-east-1a, us-east-1b, us-east-1d, us-east-1e, us-east-1f)");
  CHECK(error("{instance_type: g5.xlarge, capacity_type: reserved, count: 0}") ==
        "5:66: events[0].capacity.capacity_type: unknown capacity type \"reserved\"; expected "
        "spot or on-demand");
}

TEST_CASE("a capacity trace of counts sends launches to the next tier while it lasts", "[runner]") {
  // No g5.xlarge spot in any zone for the first hour, unlimited again after it.
  std::string trace = "time_s,instance_type,zone,capacity_type,count\n";
  for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1d", "us-east-1e", "us-east-1f"})
    trace += std::string("0,g5.xlarge,") + zone + ",spot,0\n";
  trace += "3600,g5.xlarge,us-east-1b,spot,unlimited\n";
  const CapacityRun r(pool("g5-spot", 100, "spot") + pool("g5-on-demand", 10, "on-demand"),
                      "spot: {capacity: trace.csv}\n", trace);
  REQUIRE(r.launches.launched.size() == 1);
  CHECK(r.launches.launched[0].owner_name() == "g5-on-demand");
  REQUIRE(r.result.spot);
  CHECK(r.result.spot->capacity_changes == 6);
}

TEST_CASE("billing across a spot price change is exact to the microsecond", "[runner]") {
  // g5.xlarge spot is cheapest in us-east-1b (0.397 $/h); from 1800.000001 s it costs 5 $/h.
  const CapacityRun r(pool("g5-spot", 10, "spot"), "spot: {prices: trace.csv}\n",
                      "time_s,instance_type,zone,price\n1800.000001,g5.xlarge,us-east-1b,5\n");
  REQUIRE(r.launches.launched.size() == 1);
  const Node& node = r.launches.launched[0];
  REQUIRE(node.zone == "us-east-1b");
  CHECK(node.price_per_hour == 0.397);
  const SimTime change = kSimStart + micros(1'800'000'001);
  const SimTime end = r.launches.billing_stopped.empty() ? kSimStart + hours(2)
                                                         : r.launches.billing_stopped.front();
  REQUIRE(node.billed_from < change);
  REQUIRE(end > change);
  const double expected =
      0.397 * to_hours(change - node.billed_from) + 5.0 * to_hours(end - change);
  // One microsecond at the wrong price would be off by 4.6 × 1.0e-6 / 3600 ≈ 1.3e-9 dollars.
  CHECK(r.result.cost.spot_usd == Approx(expected).margin(1e-11).epsilon(0));
  CHECK(r.launches.prices == std::vector<double>{5.0});
  REQUIRE(r.result.spot);
  CHECK(r.result.spot->price_changes == 1);
}

TEST_CASE("Karpenter's launch choice sees the spot price in force", "[runner]") {
  // From the start g5.xlarge spot costs 0.9 $/h in every zone: g5.2xlarge spot in us-east-1e
  // (0.4288 $/h) is now the cheapest type that fits the pod.
  std::string trace = "time_s,instance_type,zone,price\n";
  for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1d", "us-east-1e", "us-east-1f"})
    trace += std::string("0,g5.xlarge,") + zone + ",0.9\n";
  const std::string pools = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g5.2xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
---
)";
  const CapacityRun moved(pools, "spot: {prices: trace.csv}\n", trace);
  REQUIRE(moved.launches.launched.size() == 1);
  CHECK(moved.launches.launched[0].instance_type == "g5.2xlarge");
  CHECK(moved.launches.launched[0].zone == "us-east-1e");
  CHECK(moved.launches.launched[0].price_per_hour == 0.4288);

  const CapacityRun plain(pools, "");
  REQUIRE(plain.launches.launched.size() == 1);
  CHECK(plain.launches.launched[0].instance_type == "g5.xlarge");
  CHECK(plain.launches.launched[0].zone == "us-east-1b");
}
