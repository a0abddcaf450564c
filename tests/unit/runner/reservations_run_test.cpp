// Reservations over a run (issue 27 part 4): the reserved offering Karpenter prefers, its count as
// a hard limit, its window, what its EC2NodeClass selects, the end of a Capacity Block and of an
// interruptible reservation, consolidation into it, and the bill as AWS sends it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

constexpr double kG5XlargeOnDemand = 1.006;  // us-east-1, every zone

// One g5.xlarge pool that allows `capacity_types`, its EC2NodeClass with `terms`, and `pods`
// one-GPU pods (a g5.xlarge each) that run for `run_for`.
std::string manifests(const std::string& capacity_types, const std::string& terms, int pods,
                      const std::string& run_for, bool do_not_disrupt = true) {
  std::string out = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["g5.xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [)" +
                    capacity_types + R"(]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: test
)" + terms;
  for (int i = 0; i < pods; ++i) {
    out += R"(---
apiVersion: v1
kind: Pod
metadata:
  name: worker-)" +
           std::to_string(i) +
           R"(
  annotations: {fleetsim.io/duration: )" +
           run_for + (do_not_disrupt ? R"(, karpenter.sh/do-not-disrupt: "true"})" : "}") + R"(
spec:
  restartPolicy: Never
  containers:
    - name: c
      resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
)";
  }
  return out;
}

const std::string kSelectTeamA = "  capacityReservationSelectorTerms:\n    - tags: {team: a}\n";

std::string reservation(const std::string& fields) {
  return "  - {id: cr-0a1, instance_type: g5.xlarge, zone: us-east-1b, " + fields + "}\n";
}

struct Nodes final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::LaunchFailed) ++launch_failures;
    if (e.kind == EventKind::PodUnschedulable) unschedulable.emplace_back(e.message);
    if (e.kind == EventKind::NodeLaunched) launched.push_back(cluster.node(e.node));
    if (e.kind == EventKind::NodeDeleting) deleting.push_back(e.time);
    if (e.kind == EventKind::NodeTerminated) {
      terminated.push_back(e.time);
      reasons.push_back(cluster.node(e.node).termination_reason);
    }
  }
  std::vector<Node> launched;
  std::vector<SimTime> deleting;
  std::vector<SimTime> terminated;
  std::vector<NodeDeletionReason> reasons;
  int launch_failures = 0;
  std::vector<std::string> unschedulable;
};

struct ReservationRun {
  ReservationRun(const std::string& manifests_yaml, const std::string& reservations,
                 const std::string& duration = "2h")
      : dir("reservations") {
    dir.write("manifests.yaml", manifests_yaml);
    const auto file = dir.write("scenario.yaml", "name: r\nduration: " + duration +
                                                     "\nmanifests: [manifests.yaml]\n"
                                                     "reservations:\n" +
                                                     reservations);
    const ScenarioConfig config =
        load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    result = run(config, {.event_sinks = {&nodes}});
  }
  test::TempDir dir;
  Nodes nodes;
  RunResult result;
};

std::string label_of(const Node& n, std::string_view key) {
  const Requirement* r = n.labels.get(key);
  return r != nullptr && r->single_value() ? std::string(*r->single_value()) : "";
}

}  // namespace

// Karpenter AWS instancetype suite_test.go, Context "Capacity Reservations": a reserved offering
// for each reservation the EC2NodeClass selects, priced at on-demand ÷ 10,000,000, preferred over
// on-demand (karpenter designs/capacity-reservations.md: "always preferable to use the
// reservation"), and the node labelled as upstream.
TEST_CASE("a selected reservation is launched first and labelled", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 1, "1h"),
                         reservation("count: 1, start: 0s, end: 10h, tags: {team: a}"));
  REQUIRE(r.nodes.launched.size() == 1);
  const Node& n = r.nodes.launched[0];
  CHECK(n.capacity_type == CapacityType::Reserved);
  CHECK(n.zone == "us-east-1b");
  CHECK(n.price_per_hour == kG5XlargeOnDemand / 10'000'000.0);
  CHECK(label_of(n, "karpenter.sh/capacity-type") == "reserved");
  CHECK(label_of(n, "karpenter.k8s.aws/capacity-reservation-id") == "cr-0a1");
  CHECK(label_of(n, "karpenter.k8s.aws/capacity-reservation-type") == "default");
  CHECK(label_of(n, "karpenter.k8s.aws/capacity-reservation-interruptible") == "false");
}

// capacityreservation/suite_test.go: a term's tags must all match; a reservation the terms do
// not select is not offered to the NodeClass's pools.
TEST_CASE("a reservation the EC2NodeClass does not select is not used", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 1, "1h"),
                         reservation("count: 1, start: 0s, end: 10h, tags: {team: b}"));
  REQUIRE(r.nodes.launched.size() == 1);
  CHECK(r.nodes.launched[0].capacity_type == CapacityType::OnDemand);
  CHECK(r.nodes.launched[0].price_per_hour == kG5XlargeOnDemand);
}

// reservationmanager_test.go ("should not reserve beyond the reservation's capacity"): the count
// is a hard limit; the second pod falls back to on-demand.
TEST_CASE("a reservation holds no more than its count", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 2, "1h"),
                         reservation("count: 1, start: 0s, end: 10h, tags: {team: a}"));
  REQUIRE(r.nodes.launched.size() == 2);
  int reserved = 0;
  for (const Node& n : r.nodes.launched) reserved += n.capacity_type == CapacityType::Reserved;
  CHECK(reserved == 1);
}

// scheduling suite_test.go "should correctly track reservations shared across nodepools" over a
// run: one batch of four pods and a reservation of two. The solve's claims hold the two
// instances (ReservationManager); the other pods wait in that solve with upstream's reason
// instead of over-asking the reservation and failing at launch.
TEST_CASE("one batch never launches more than a reservation has left", "[runner]") {
  const ReservationRun r(manifests("\"reserved\"", kSelectTeamA, 4, "3h"),
                         reservation("count: 2, start: 0s, end: 10h, tags: {team: a}"), "1h");
  CHECK(r.nodes.launched.size() == 2);
  CHECK(r.nodes.launch_failures == 0);
  REQUIRE_FALSE(r.nodes.unschedulable.empty());
  CHECK(r.nodes.unschedulable.front() ==
        "nodepool gpu: one or more instance types with compatible reserved offerings are "
        "available, but could not be reserved");
}

// Outside its window a reservation offers nothing (EC2 lists only active reservations); once it
// opens, consolidation replaces the on-demand node with a reserved one (designs/
// capacity-reservations.md: consolidate from on-demand and spot into reserved).
TEST_CASE("consolidation moves a pod into a reservation once its window opens", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 1, "3h", false),
                         reservation("count: 1, start: 30m, end: 10h, tags: {team: a}"));
  REQUIRE(r.nodes.launched.size() == 2);
  CHECK(r.nodes.launched[0].capacity_type == CapacityType::OnDemand);
  CHECK(r.nodes.launched[1].capacity_type == CapacityType::Reserved);
  CHECK(r.nodes.launched[1].created >= kSimStart + minutes(30));
  REQUIRE_FALSE(r.nodes.reasons.empty());
  CHECK(r.nodes.reasons[0] == NodeDeletionReason::Underutilized);
}

// An ODCR bills the on-demand rate for every reserved instance over its window, used or not;
// its nodes add nothing while it covers them.
TEST_CASE("an ODCR is billed whole and its nodes add nothing", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 1, "1h"),
                         reservation("count: 2, start: 0s, end: 2h, tags: {team: a}"));
  REQUIRE(r.result.reservations);
  const ReservationsResult& res = *r.result.reservations;
  REQUIRE(res.by_id.size() == 1);
  const ReservationResult& cr = res.by_id[0];
  CHECK(cr.window_hours == 2.0);
  CHECK(cr.reserved_instance_hours == 4.0);
  CHECK(cr.usd == Approx(kG5XlargeOnDemand * 4).epsilon(1e-12));
  REQUIRE(r.nodes.launched.size() == 1);
  // The node ran from its launch until its pod's hour (and the drain) ended.
  CHECK(cr.used_instance_hours > 1.0);
  CHECK(cr.used_instance_hours < 1.1);
  CHECK(cr.unused_usd == Approx(kG5XlargeOnDemand * (4 - cr.used_instance_hours)));
  CHECK(r.result.cost.on_demand_usd == 0.0);
  REQUIRE(r.result.cost.reservations_usd);
  CHECK(*r.result.cost.reservations_usd == cr.usd);
  CHECK(r.result.cost.total_usd == Approx(cr.usd + r.result.cost.ebs_usd).epsilon(1e-12));
  CHECK(r.result.cost.by_workload.at("(reservations)") == cr.usd);
  // Outside the efficiency's actual cost and bounds, as EBS is.
  CHECK(r.result.efficiency.actual_usd == Approx(0.0).margin(1e-9));
}

// A Capacity Block's fee per instance-hour, over the window within the run.
TEST_CASE("a Capacity Block costs its fee times its count over the run's part of the window",
          "[runner]") {
  const ReservationRun r(
      manifests("\"reserved\"", kSelectTeamA, 1, "1h"),
      reservation("count: 2, start: 0s, end: 10h, type: capacity-block, price_per_hour: 0.5, "
                  "tags: {team: a}"));
  REQUIRE(r.result.reservations);
  const ReservationResult& cr = r.result.reservations->by_id[0];
  CHECK(cr.type == "capacity-block");
  CHECK(cr.usd_per_instance_hour == 0.5);
  CHECK(cr.window_hours == 2.0);  // the run's two hours of the ten
  CHECK(cr.usd == 2.0);
}

// Karpenter AWS capacityreservation/expiration/controller.go: a Capacity Block's NodeClaims are
// deleted 40 minutes before its end, 10 minutes before EC2 reclaims the instances, and no new
// node launches into it from then on.
TEST_CASE("a Capacity Block's nodes are drained 40 minutes before its end", "[runner]") {
  const ReservationRun r(
      manifests("\"reserved\"", kSelectTeamA, 1, "5h"),
      reservation("count: 1, start: 0s, end: 2h, type: capacity-block, price_per_hour: 0.5, "
                  "tags: {team: a}"),
      "3h");
  REQUIRE(r.nodes.launched.size() == 1);
  REQUIRE(r.nodes.deleting.size() == 1);
  // The notice at 1 h 20 min; the deletion after the API's call time.
  CHECK(r.nodes.deleting[0] >= kSimStart + minutes(80));
  CHECK(r.nodes.deleting[0] < kSimStart + minutes(80) + seconds(1));
  REQUIRE(r.nodes.terminated.size() == 1);
  CHECK(r.nodes.terminated[0] <= kSimStart + minutes(90));
  CHECK(r.nodes.reasons[0] == NodeDeletionReason::CapacityReservationInterruption);
  CHECK(r.result.nodes.terminated_by_reason.at(
            NodeDeletionReason::CapacityReservationInterruption) == 1);
}

// An interruptible reservation's instances get the 2-minute notice of the spot path before it
// takes them back at its end.
TEST_CASE("an interruptible reservation gives a two-minute notice before its end", "[runner]") {
  const ReservationRun r(
      manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 1, "5h"),
      reservation("count: 1, start: 0s, end: 1h, interruptible: true, tags: {team: a}"), "2h");
  REQUIRE_FALSE(r.nodes.deleting.empty());
  CHECK(r.nodes.deleting[0] >= kSimStart + minutes(58));
  CHECK(r.nodes.deleting[0] < kSimStart + minutes(58) + seconds(1));
  CHECK(r.nodes.launched[0].capacity_type == CapacityType::Reserved);
  CHECK(r.nodes.reasons[0] == NodeDeletionReason::CapacityReservationInterruption);
  CHECK(r.nodes.terminated[0] <= kSimStart + minutes(60));
  CHECK(r.nodes.launched.size() == 1);  // a bare pod is not replaced
}

TEST_CASE("reservations: bad input names the field", "[runner]") {
  test::TempDir dir("reservation-errors");
  dir.write("manifests.yaml", manifests("\"reserved\"", kSelectTeamA, 1, "1h"));
  const auto error = [&](const std::string& entry) {
    const auto file = dir.write("scenario.yaml",
                                "name: e\nduration: 1h\nmanifests: [manifests.yaml]\n"
                                "reservations:\n  - " +
                                    entry + "\n");
    const std::string e = test::config_error([&] {
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    });
    return e.substr(e.find(':', file.string().size()) + 1);
  };
  const std::string head = "{id: cr-0a1, instance_type: g5.xlarge, zone: us-east-1b, ";
  CHECK(error(head + "count: 1, start: 2h, end: 1h}") ==
        "5:88: reservations[0].end: the window ends (1h) before it starts (2h)");
  CHECK(error(head + "count: 1, start: 0s, end: 1h, type: odcr}") ==
        "5:98: reservations[0].type: unknown reservation type \"odcr\"; expected default or "
        "capacity-block");
  CHECK(error(head + "count: 3, start: 0s, end: 1h, type: capacity-block, price_per_hour: 1}") ==
        "5:69: reservations[0].count: a Capacity Block holds 1, 2, 4, 8, 16, 32 or 64 instances, "
        "not 3");
  CHECK(error(head + "count: 2, start: 0s, end: 1h, type: capacity-block}") ==
        "5:5: reservations[0]: a Capacity Block needs its price_per_hour (USD per instance-hour; "
        "block prices change)");
  CHECK(error("{id: cr-0a1, instance_type: g9.huge, zone: us-east-1b, count: 1, start: 0s, "
              "end: 1h}") ==
        "5:33: reservations[0].instance_type: instance type \"g9.huge\" is not in the catalog");
  CHECK(error("{id: cr-0a1, instance_type: g5.xlarge, zone: eu-west-1a, count: 1, start: 0s, "
              "end: 1h}") ==
        "5:50: reservations[0].zone: g5.xlarge is not sold on demand in zone \"eu-west-1a\" "
        "(zones: us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f)");
  CHECK(error(head + "count: 1, start: 0s, end: 1h}\n  - " + head +
              "count: 1, start: 0s, end: 1h}") ==
        "6:10: reservations[1].id: reservation \"cr-0a1\" is declared twice");
}

// After an ODCR's window its instances run on, billed at the on-demand rate (EC2 releases the
// reservation, not the instance).
TEST_CASE("an ODCR's instances are billed on demand after its end", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", kSelectTeamA, 1, "5h"),
                         reservation("count: 1, start: 0s, end: 1h, tags: {team: a}"));
  REQUIRE(r.nodes.launched.size() == 1);
  const ReservationResult& cr = r.result.reservations->by_id[0];
  CHECK(cr.usd == kG5XlargeOnDemand);
  // Covered until 1 h, then on demand until the run's end at 2 h (and its EBS volume throughout).
  CHECK(r.result.cost.by_capacity_type.at("reserved") - r.result.cost.ebs_usd ==
        Approx(kG5XlargeOnDemand));
  CHECK(cr.used_instance_hours ==
        Approx(1.0 - to_hours(r.nodes.launched[0].billed_from - kSimStart)));
}

// Consolidation prices a replacement with the offerings its pool may launch: a reservation its
// EC2NodeClass does not select is no cheaper replacement (no churn onto on-demand again).
TEST_CASE("consolidation does not count on a reservation the pool cannot use", "[runner]") {
  const ReservationRun r(manifests("\"reserved\", \"on-demand\"", "", 1, "90m", false),
                         reservation("count: 1, start: 0s, end: 10h, tags: {team: a}"));
  REQUIRE(r.nodes.launched.size() == 1);
  CHECK(r.nodes.launched[0].capacity_type == CapacityType::OnDemand);
  REQUIRE(r.result.disruption);
  CHECK(r.result.disruption->replacements == 0);
}
