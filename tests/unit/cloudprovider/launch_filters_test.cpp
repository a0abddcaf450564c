// plan_launch: the capacity type and the ordered offerings a NodeClaim's fleet request carries
// (karpenter.md §1.4: exotic filter, spot filter, 60-type truncation).
#include "fleetsim/cloudprovider/aws/launch_filters.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "../scheduling/builders.hpp"

using namespace fleetsim;
using test::make_type;

namespace {

constexpr std::string_view kZoneA = "us-east-1a";
constexpr std::string_view kZoneB = "us-east-1b";

// A NodeClaim as the launch sees it: its instance types in order, and its requirements.
struct Claim {
  std::vector<InstanceTypeOption> types;
  Requirements requirements;
};

// What plan_launch reads: the catalog, and a claim's types and requirements.
class Launcher {
 public:
  explicit Launcher(Catalog catalog) : catalog_(std::move(catalog)), prices_(catalog_) {}
  Launcher(const Launcher&) = delete;  // the price source points into the catalog

  Claim claim(const std::vector<std::string>& type_names, Requirements requirements = {}) const {
    Claim c;
    for (const auto& name : type_names) {
      auto index = catalog_.index_of(name);
      REQUIRE(index);
      c.types.push_back({.type = static_cast<std::uint32_t>(*index),
                         .allocatable = catalog_.types()[*index].allocatable});
    }
    c.requirements = std::move(requirements);
    return c;
  }

  // Every offering usable except those of `type` (every type when empty) with capacity `ct`.
  std::vector<std::uint8_t> usable_except(CapacityType ct, std::string_view type = {},
                                          std::vector<std::uint8_t> mask = {}) const {
    if (mask.empty()) mask.assign(catalog_.offering_count(), 1);
    for (std::uint32_t t = 0; t < catalog_.types().size(); ++t) {
      const InstanceType& it = catalog_.types()[t];
      if (!type.empty() && it.name != type) continue;
      for (std::size_t i = 0; i < it.offerings.size(); ++i)
        if (it.offerings[i].capacity_type == ct) mask[catalog_.offering_index(t, i)] = 0;
    }
    return mask;
  }

  LaunchPlan plan(const Claim& claim, std::span<const std::uint8_t> usable = {}) const {
    return plan_launch(prices_, claim.requirements, claim.types, usable);
  }

  // Candidates as "type zone capacity-type price", in plan order.
  std::vector<std::string> describe(const LaunchPlan& plan) const {
    std::vector<std::string> out;
    for (const LaunchCandidate& c : plan.candidates) {
      const InstanceType& t = catalog_.types()[c.type];
      const Offering& o = t.offerings[c.offering];
      CHECK(c.price == o.price_per_hour);
      out.push_back(
          fmt::format("{} {} {} {:.3f}", t.name, o.zone, to_string(o.capacity_type), c.price));
    }
    return out;
  }

  const Catalog& catalog() const { return catalog_; }

 private:
  Catalog catalog_;
  PriceSource prices_;
};

using Lines = std::vector<std::string>;

Requirements capacity_types(std::vector<std::string> types) {
  Requirements r;
  r.add(std::string(label::kCapacityType), test::in(std::move(types)));
  return r;
}

Requirements spot_or_on_demand() { return capacity_types({"spot", "on-demand"}); }

// m5.large and m5.xlarge spot offerings, cheapest first; all below m5.large's $0.096 on-demand.
const Lines kM5Spot{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040",
                    "m5.xlarge us-east-1a spot 0.080", "m5.xlarge us-east-1b spot 0.080"};
const Lines kM5OnDemand{
    "m5.large us-east-1a on-demand 0.096", "m5.large us-east-1b on-demand 0.096",
    "m5.xlarge us-east-1a on-demand 0.192", "m5.xlarge us-east-1b on-demand 0.192"};

}  // namespace

TEST_CASE("spot is launched when the claim allows it and a spot offering is usable",
          "[cloudprovider]") {
  Launcher l(test::small_catalog());
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.xlarge"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::Spot);
  CHECK(l.describe(plan) == kM5Spot);
  // No capacity-type requirement at all allows every capacity type.
  CHECK(l.describe(l.plan(l.claim({"m5.large", "m5.xlarge"}))) == kM5Spot);
}

TEST_CASE("on-demand is launched when the claim does not allow spot", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.xlarge"}, capacity_types({"on-demand"})));
  CHECK(plan.capacity_type == CapacityType::OnDemand);
  CHECK(l.describe(plan) == kM5OnDemand);
}

TEST_CASE("on-demand is launched when every spot offering is unusable", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  std::vector<std::uint8_t> no_spot = l.usable_except(CapacityType::Spot);
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.xlarge"}, spot_or_on_demand()), no_spot);
  CHECK(plan.capacity_type == CapacityType::OnDemand);
  CHECK(l.describe(plan) == kM5OnDemand);
}

TEST_CASE("one usable spot offering is enough for a spot launch", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  std::vector<std::uint8_t> usable = l.usable_except(CapacityType::Spot, "m5.large");
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.xlarge"}, spot_or_on_demand()), usable);
  CHECK(plan.capacity_type == CapacityType::Spot);
  CHECK(l.describe(plan) ==
        Lines{"m5.xlarge us-east-1a spot 0.080", "m5.xlarge us-east-1b spot 0.080"});
}

TEST_CASE("nothing launchable gives an empty plan", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  std::vector<std::uint8_t> none(
      l.usable_except(CapacityType::Spot, {}, l.usable_except(CapacityType::OnDemand)));
  CHECK(l.plan(l.claim({"m5.large"}), none).candidates.empty());
  // c5.large has no spot offering at all.
  CHECK(l.plan(l.claim({"c5.large"}, capacity_types({"spot"}))).candidates.empty());
}

TEST_CASE("the exotic filter drops GPU types while an ordinary type is in the claim",
          "[cloudprovider]") {
  Launcher l(test::small_catalog());
  LaunchPlan plan = l.plan(l.claim({"m5.large", "g4dn.xlarge", "g5.xlarge"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::Spot);
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040"});
}

TEST_CASE("the exotic filter drops metal types too", "[cloudprovider]") {
  // m5.metal's spot price is below m5.large's on-demand one, so only the exotic filter removes it.
  Launcher l(Catalog({make_type({.name = "m5.large", .on_demand = 0.096, .spot = 0.04}),
                      make_type({.name = "m5.metal",
                                 .vcpu = 96,
                                 .memory_gib = 384,
                                 .max_pods = 737,
                                 .on_demand = 4.608,
                                 .spot = 0.05})},
                     "test"));
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.metal"}, spot_or_on_demand()));
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040"});
}

TEST_CASE("GPU types are launched when the claim has nothing else", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  LaunchPlan plan = l.plan(l.claim({"g4dn.xlarge", "g5.xlarge"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::Spot);
  // Both spot prices are below the cheapest on-demand offering ($0.526), so the spot filter keeps
  // them.
  CHECK(l.describe(plan) ==
        Lines{"g4dn.xlarge us-east-1a spot 0.220", "g4dn.xlarge us-east-1b spot 0.220",
              "g5.xlarge us-east-1a spot 0.450", "g5.xlarge us-east-1b spot 0.450"});
}

TEST_CASE("minValues switches the exotic and spot filters off", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  Requirements r = spot_or_on_demand();
  Requirement types = test::in({"m5.large", "m5.2xlarge", "g4dn.xlarge"});
  types.set_min_values(2);
  r.add(std::string(label::kInstanceType), types);
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.2xlarge", "g4dn.xlarge"}, r));
  CHECK(plan.capacity_type == CapacityType::Spot);
  // g4dn.xlarge stays (no exotic filter) and so does m5.2xlarge's $0.16 spot, dearer than
  // m5.large's $0.096 on-demand (no spot filter).
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040",
              "m5.2xlarge us-east-1a spot 0.160", "m5.2xlarge us-east-1b spot 0.160",
              "g4dn.xlarge us-east-1a spot 0.220", "g4dn.xlarge us-east-1b spot 0.220"});
}

TEST_CASE("the spot filter drops spot offerings dearer than the cheapest on-demand one",
          "[cloudprovider]") {
  Launcher l(test::small_catalog());
  // m5.2xlarge spot is $0.16, above m5.large on-demand at $0.096: a bigger spot node must not cost
  // more than the smallest on-demand node that would do.
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.2xlarge"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::Spot);
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040"});
}

TEST_CASE("the spot filter needs both capacity types allowed", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.2xlarge"}, capacity_types({"spot"})));
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040",
              "m5.2xlarge us-east-1a spot 0.160", "m5.2xlarge us-east-1b spot 0.160"});
}

TEST_CASE("the spot filter's ceiling is the cheapest usable on-demand offering",
          "[cloudprovider]") {
  Launcher l(test::small_catalog());
  // With m5.large on-demand out of capacity the cheapest on-demand node is m5.2xlarge at $0.384,
  // so its $0.16 spot offering passes.
  std::vector<std::uint8_t> usable = l.usable_except(CapacityType::OnDemand, "m5.large");
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.2xlarge"}, spot_or_on_demand()), usable);
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1a spot 0.040", "m5.large us-east-1b spot 0.040",
              "m5.2xlarge us-east-1a spot 0.160", "m5.2xlarge us-east-1b spot 0.160"});
}

TEST_CASE("the spot filter never empties the plan", "[cloudprovider]") {
  // A spot price above on-demand: fleetsim keeps the spot offerings rather than launch nothing.
  Launcher l(Catalog({make_type({.name = "x5.large", .on_demand = 0.10, .spot = 0.12})}, "test"));
  LaunchPlan plan = l.plan(l.claim({"x5.large"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::Spot);
  CHECK(l.describe(plan) ==
        Lines{"x5.large us-east-1a spot 0.120", "x5.large us-east-1b spot 0.120"});
}

TEST_CASE("an ordinary on-demand type wins over a GPU type's spot offering", "[cloudprovider]") {
  // Karpenter v1.14 (aws instance.go filterInstanceTypes, then getCapacityType) runs the exotic
  // filter over every type with a usable offering of any allowed capacity type, and only then
  // picks the capacity type from what is left. c5.large (on-demand only) is ordinary, so
  // g4dn.xlarge is dropped and no spot offering remains: c5.large launches on-demand.
  Launcher l(test::small_catalog());
  LaunchPlan plan = l.plan(l.claim({"c5.large", "g4dn.xlarge"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::OnDemand);
  CHECK(l.describe(plan) ==
        Lines{"c5.large us-east-1a on-demand 0.085", "c5.large us-east-1b on-demand 0.085"});
}

TEST_CASE("the spot filter's ceiling includes types without spot offerings", "[cloudprovider]") {
  // Karpenter's SpotInstanceFilter takes the cheapest on-demand offering over all remaining types
  // ($0.085, c5.large), drops m5.large whose only spot price ($0.09) is above it, keeps c5.large
  // (no spot offering), and getCapacityType then finds no spot: c5.large on-demand.
  Launcher l(Catalog({make_type({.name = "c5.large", .memory_gib = 4, .on_demand = 0.085}),
                      make_type({.name = "m5.large", .on_demand = 0.096, .spot = 0.09})},
                     "test"));
  LaunchPlan plan = l.plan(l.claim({"c5.large", "m5.large"}, spot_or_on_demand()));
  CHECK(plan.capacity_type == CapacityType::OnDemand);
  CHECK(l.describe(plan) ==
        Lines{"c5.large us-east-1a on-demand 0.085", "c5.large us-east-1b on-demand 0.085"});
}

TEST_CASE("candidates are ordered by price, then type name, then offering", "[cloudprovider]") {
  // b5 and a5 cost the same; each lists zone b before zone a, so offering order puts b first.
  Launcher l(Catalog(
      {make_type({.name = "b5.large", .on_demand = 0.10, .zones = {"us-east-1b", "us-east-1a"}}),
       make_type({.name = "a5.large", .on_demand = 0.10, .zones = {"us-east-1b", "us-east-1a"}}),
       make_type({.name = "c5.large", .on_demand = 0.05, .zones = {"us-east-1a"}})},
      "test"));
  LaunchPlan plan =
      l.plan(l.claim({"b5.large", "a5.large", "c5.large"}, capacity_types({"on-demand"})));
  CHECK(l.describe(plan) ==
        Lines{"c5.large us-east-1a on-demand 0.050", "a5.large us-east-1b on-demand 0.100",
              "a5.large us-east-1a on-demand 0.100", "b5.large us-east-1b on-demand 0.100",
              "b5.large us-east-1a on-demand 0.100"});
  REQUIRE(plan.candidates.size() == 5);
  CHECK(plan.candidates[1].offering == 0);
  CHECK(plan.candidates[2].offering == 1);
}

TEST_CASE("a zone requirement restricts the offerings", "[cloudprovider]") {
  Launcher l(test::small_catalog());
  Requirements r = spot_or_on_demand();
  r.add(std::string(label::kZone), test::in({std::string(kZoneB)}));
  LaunchPlan plan = l.plan(l.claim({"m5.large", "m5.xlarge"}, r));
  CHECK(l.describe(plan) ==
        Lines{"m5.large us-east-1b spot 0.040", "m5.xlarge us-east-1b spot 0.080"});

  // When the only zone with spot capacity is excluded, the launch falls back to on-demand there.
  std::vector<std::uint8_t> usable = l.usable_except(CapacityType::Spot);
  Requirements a_only = spot_or_on_demand();
  a_only.add(std::string(label::kZone), test::in({std::string(kZoneA)}));
  LaunchPlan od = l.plan(l.claim({"m5.large"}, a_only), usable);
  CHECK(od.capacity_type == CapacityType::OnDemand);
  CHECK(l.describe(od) == Lines{"m5.large us-east-1a on-demand 0.096"});
}

TEST_CASE("a fleet request carries at most 60 instance types, the cheapest", "[cloudprovider]") {
  // 70 on-demand types in one zone, named in price order; the claim lists them cheapest first.
  std::vector<InstanceType> types;
  std::vector<std::string> names;
  for (int i = 0; i < 70; ++i) {
    names.push_back(fmt::format("t{:02}.large", i));
    types.push_back(
        make_type({.name = names.back(), .on_demand = 0.01 * (i + 1), .zones = {"us-east-1a"}}));
  }
  Launcher l(Catalog(std::move(types), "test"));
  LaunchPlan plan = l.plan(l.claim(names, capacity_types({"on-demand"})));
  STATIC_REQUIRE(kMaxFleetInstanceTypes == 60);
  REQUIRE(plan.candidates.size() == 60);
  CHECK(l.catalog().types()[plan.candidates.front().type].name == "t00.large");
  CHECK(l.catalog().types()[plan.candidates.back().type].name == "t59.large");
}
