// The claims of one solve share a reservation's remaining instances (Karpenter's
// ReservationManager): the "Reserved Instance Types" situations of upstream's scheduling
// suite_test.go, each solve standing for one ExpectProvisioned.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "builders.hpp"
#include "fleetsim/catalog/reservations.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

constexpr std::string_view kReservedError =
    "one or more instance types with compatible reserved offerings are available, but could not "
    "be reserved";

// Upstream's small (2 CPU), medium (3 CPU) and large (6 CPU) types.
Catalog three_sizes(std::vector<Reservation> reservations) {
  std::vector<InstanceType> types{
      make_type({.name = "x1.large", .vcpu = 6, .memory_gib = 16, .on_demand = 0.3}),
      make_type({.name = "x1.medium", .vcpu = 3, .memory_gib = 16, .on_demand = 0.15}),
      make_type({.name = "x1.small", .vcpu = 2, .memory_gib = 16, .on_demand = 0.1}),
  };
  return Catalog(std::move(types), "test").with_reservations(std::move(reservations));
}

Reservation reservation(std::string id, std::string type) {
  return Reservation{.id = std::move(id),
                     .instance_type = std::move(type),
                     .zone = "us-east-1a",
                     .count = 1,
                     .start = SimTime{},
                     .end = SimTime{} + hours(240)};
}

NodePool reserved_pool(std::string name, int weight = 0) {
  NodePool p = make_pool(std::move(name), weight);
  p.requirements.add(std::string(label::kCapacityType), in({"on-demand", "reserved"}));
  return p;
}

// One provisioning solve; `left` per reservation, and a reservation with none left is no longer
// offered (its offering unavailable, as EC2 reports it).
struct Solve {
  const Catalog& catalog;
  std::vector<NodePool> pools;
  std::vector<std::vector<std::uint8_t>> offering_allowed = {};
  bool strict = true;

  SolveResult operator()(Problem& problem, std::vector<std::int64_t> left) const {
    SchedulingContext ctx(catalog, pools, {}, {}, offering_allowed);
    Scheduler scheduler(ctx, SchedulerOptions{.strict_reserved_offerings = strict});
    std::vector<std::uint8_t> usable(catalog.offering_count(), 1);
    for (std::size_t r = 0; r < left.size(); ++r)
      if (left[r] == 0) usable[catalog.reservation_offering(r)] = 0;
    SolveInput input = problem.input();
    input.offering_usable = usable;
    input.reservation_remaining = left;
    return scheduler.solve(input);
  }
};

PodSpec pod_1800m() { return make_pod({.cpu_millis = 1800, .memory_mib = 128}); }

std::vector<std::string> reservation_ids(const NewNodeClaim& claim) {
  const Requirement* r = claim.requirements.get(label::kCapacityReservationId);
  return r == nullptr ? std::vector<std::string>{} : r->values();
}

// The remaining pods of `problem`, those that failed in `r`.
Problem failed_pods(const Problem& problem, const SolveResult& r) {
  Problem next;
  for (const PodFailure& f : r.failures) next.add(*problem.pods[f.pod].spec);
  return next;
}

}  // namespace

// suite_test.go "shouldn't fallback to on-demand or spot when compatible reserved offerings are
// available": one claim reserves both reservations it might launch into, so each solve places
// one pod until both are used, and only then falls back to on-demand.
TEST_CASE("claims of one solve never ask a reservation for more than it has left", "[scheduling]") {
  const Catalog catalog =
      three_sizes({reservation("cr-small", "x1.small"), reservation("cr-medium", "x1.medium")});
  const Solve solve{.catalog = catalog, .pools = {reserved_pool("default")}};
  Problem problem;
  problem.add(pod_1800m(), 3);

  SolveResult first = solve(problem, {1, 1});
  REQUIRE(first.claims.size() == 1);
  CHECK(first.claims[0].pods == std::vector<std::uint32_t>{0});
  CHECK(type_names(catalog, first.claims[0]) == std::vector<std::string>{"x1.small", "x1.medium"});
  CHECK(reservation_ids(first.claims[0]) == std::vector<std::string>{"cr-medium", "cr-small"});
  CHECK(first.claims[0].requirements.get(label::kCapacityType)->values() ==
        std::vector<std::string>{"reserved"});
  REQUIRE(first.failures.size() == 2);
  CHECK(first.failures[0].reason == fmt::format("nodepool default: {}", kReservedError));

  // The launch took cr-small (the cheaper): the next solve reserves cr-medium alone.
  Problem rest = failed_pods(problem, first);
  SolveResult second = solve(rest, {0, 1});
  REQUIRE(second.claims.size() == 1);
  CHECK(type_names(catalog, second.claims[0]) == std::vector<std::string>{"x1.medium"});
  CHECK(reservation_ids(second.claims[0]) == std::vector<std::string>{"cr-medium"});
  CHECK(second.failures.size() == 1);

  // Both used: the last pod falls back to on-demand, with every type and no reservation.
  Problem last = failed_pods(rest, second);
  SolveResult third = solve(last, {0, 0});
  REQUIRE(third.claims.size() == 1);
  CHECK(type_names(catalog, third.claims[0]) ==
        std::vector<std::string>{"x1.small", "x1.medium", "x1.large"});
  CHECK(reservation_ids(third.claims[0]).empty());
  CHECK(third.failures.empty());
}

// The default mode (ReservedOfferingModeFallback, consolidation's simulations): a claim that
// outgrows its reserved types gives its reservations back and takes the pods on-demand.
TEST_CASE("without strict reservations a claim falls back and releases its reservations",
          "[scheduling]") {
  const Catalog catalog =
      three_sizes({reservation("cr-small", "x1.small"), reservation("cr-medium", "x1.medium")});
  const Solve solve{.catalog = catalog, .pools = {reserved_pool("default")}, .strict = false};
  Problem problem;
  problem.add(pod_1800m(), 3);
  SolveResult r = solve(problem, {1, 1});
  REQUIRE(r.claims.size() == 1);
  CHECK(r.claims[0].pods.size() == 3);
  CHECK(type_names(catalog, r.claims[0]) == std::vector<std::string>{"x1.large"});
  CHECK(reservation_ids(r.claims[0]).empty());
  CHECK(r.failures.empty());
}

// suite_test.go "should correctly track reservations shared across nodepools".
TEST_CASE("two NodePools share one reservation's count", "[scheduling]") {
  const Catalog catalog = three_sizes({reservation("cr-small", "x1.small")});
  const Solve solve{.catalog = catalog, .pools = {reserved_pool("np-1"), reserved_pool("np-2")}};
  Problem problem;
  for (const char* pool : {"np-1", "np-2"}) {
    PodSpec spec = pod_1800m();
    spec.node_requirements.add(std::string(label::kInstanceType), in({"x1.small"}));
    spec.node_requirements.add(std::string(label::kNodePool), in({pool}));
    problem.add(spec);
  }
  SolveResult first = solve(problem, {1});
  REQUIRE(first.claims.size() == 1);
  CHECK(first.claims[0].pods == std::vector<std::uint32_t>{0});
  CHECK(reservation_ids(first.claims[0]) == std::vector<std::string>{"cr-small"});
  REQUIRE(first.failures.size() == 1);
  CHECK(first.failures[0].pod == 1);
  CHECK(first.failures[0].reason == fmt::format("nodepool np-2: {}", kReservedError));

  Problem rest = failed_pods(problem, first);
  SolveResult second = solve(rest, {0});
  REQUIRE(second.claims.size() == 1);
  CHECK(second.claims[0].pool == 1);
  CHECK(reservation_ids(second.claims[0]).empty());
}

// suite_test.go "shouldn't fallback to a lower weight NodePool if a reserved offering is
// available": each pool's EC2NodeClass selects its own reservation of the same type.
TEST_CASE("a pod waits rather than fall back to a lower-weight pool's reservation",
          "[scheduling]") {
  const Catalog catalog =
      three_sizes({reservation("cr-primary", "x1.small"), reservation("cr-fallback", "x1.small")});
  std::vector<std::uint8_t> primary(catalog.offering_count(), 1), fallback = primary;
  primary[catalog.reservation_offering(1)] = 0;
  fallback[catalog.reservation_offering(0)] = 0;
  const Solve solve{.catalog = catalog,
                    .pools = {reserved_pool("primary", 100), reserved_pool("fallback", 50)},
                    .offering_allowed = {primary, fallback}};
  PodSpec spec = pod_1800m();
  spec.node_requirements.add(std::string(label::kInstanceType), in({"x1.small"}));
  Problem problem;
  problem.add(spec, 2);

  SolveResult first = solve(problem, {1, 1});
  REQUIRE(first.claims.size() == 1);
  CHECK(first.claims[0].pool == 0);
  CHECK(reservation_ids(first.claims[0]) == std::vector<std::string>{"cr-primary"});
  REQUIRE(first.failures.size() == 1);
  CHECK(first.failures[0].reason == fmt::format("nodepool primary: {}", kReservedError));

  // cr-primary used: the pod goes to the primary pool on-demand, not to cr-fallback.
  Problem rest = failed_pods(problem, first);
  SolveResult second = solve(rest, {0, 1});
  REQUIRE(second.claims.size() == 1);
  CHECK(second.claims[0].pool == 0);
  CHECK(reservation_ids(second.claims[0]).empty());
}

// Without reservations tracked (the Cluster Autoscaler, validation) nothing changes: both claims
// may ask for the one reserved instance, as before.
TEST_CASE("a solve without reservation counts leaves claims unheld", "[scheduling]") {
  const Catalog catalog = three_sizes({reservation("cr-small", "x1.small")});
  std::vector<NodePool> pools{reserved_pool("default")};
  SchedulingContext ctx(catalog, pools, {});
  Scheduler scheduler(ctx, SchedulerOptions{.strict_reserved_offerings = true});
  PodSpec spec = pod_1800m();
  spec.node_requirements.add(std::string(label::kInstanceType), in({"x1.small"}));
  Problem problem;
  problem.add(spec, 2);
  SolveResult r = scheduler.solve(problem.input());
  CHECK(r.claims.size() == 2);
  CHECK(r.failures.empty());
  for (const NewNodeClaim& c : r.claims) CHECK(reservation_ids(c).empty());
}
