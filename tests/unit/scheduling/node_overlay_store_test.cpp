// NodeOverlays as Karpenter's nodeoverlay controller applies them to each NodePool's instance
// types: translated from kubernetes-sigs/karpenter pkg/controllers/nodeoverlay/suite_test.go
// and store_test.go (each case names the upstream test it follows).
#include "fleetsim/scheduling/node_overlay_store.hpp"

#include <catch2/catch.hpp>

#include "builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct OverlayArgs {
  std::string name;
  Requirements requirements;
  std::string price;       // spec.price
  std::string adjustment;  // spec.priceAdjustment
  std::vector<std::pair<ResourceIndex, std::int64_t>> capacity;
  bool has_capacity = false;
  std::int32_t weight = 0;
};

NodeOverlay overlay(OverlayArgs a) {
  const bool has_capacity = a.has_capacity || !a.capacity.empty();
  NodeOverlay o{.name = std::move(a.name),
                .requirements = std::move(a.requirements),
                .capacity = std::move(a.capacity),
                .has_capacity = has_capacity,
                .weight = a.weight};
  if (!a.price.empty()) o.price = *parse_overlay_price(a.price);
  if (!a.adjustment.empty()) o.price = *parse_price_adjustment(a.adjustment);
  return o;
}

Requirements req(std::string_view key, Requirement r) {
  Requirements out;
  out.add(std::string(key), std::move(r));
  return out;
}

// A custom extended resource (smarter-devices/fuse in the upstream tests).
constexpr ResourceIndex kFuse = resource::kWellKnownCount;

std::uint32_t type_index(const Catalog& c, std::string_view name) {
  return static_cast<std::uint32_t>(*c.index_of(name));
}

// The price the pool's claim would see for the type's offering in a zone and capacity type.
double price_of(const Catalog& c, const OverlayResolution& r, std::size_t pool,
                std::string_view type, std::string_view zone, CapacityType ct) {
  const std::uint32_t g = *c.find_offering(type_index(c, type), std::string(zone), ct);
  const double base = c.offering(g).price_per_hour;
  const auto& changes = r.pools[pool].price_by_offering;
  return changes.empty() ? base : adjusted_price(base, changes[g]);
}

std::int64_t capacity_of(const Catalog& c, const OverlayResolution& r, std::size_t pool,
                         std::string_view type, ResourceIndex res) {
  const auto& by_type = r.pools[pool].capacity_by_type;
  if (by_type.empty()) return -1;
  for (const auto& [k, q] : by_type[type_index(c, type)])
    if (k == res) return q;
  return -1;
}

std::vector<std::string> conflicting(const OverlayResolution& r,
                                     const std::vector<NodeOverlay>& overlays) {
  std::vector<std::string> out;
  for (const OverlayConflict& c : r.conflicts) out.push_back(overlays[c.overlay].name);
  return out;
}

}  // namespace

// upstream: "should return the same instance type when zero overlay are applied"
TEST_CASE("without overlays no pool's instance types change", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, {});
  REQUIRE(r.pools.size() == 1);
  CHECK(r.pools[0].price_by_offering.empty());
  CHECK(r.pools[0].capacity_by_type.empty());
  CHECK(r.conflicts.empty());
}

// upstream: "should fail when requirements overlays overlap" (price, weight 10 each)
TEST_CASE(
    "equal-weight price overlays on one offering: the later name wins and the other "
    "applies nowhere",
    "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "overlay-a",
               .requirements = req(label::kInstanceType, in({"m5.large", "c5.large"})),
               .price = "1.03",
               .weight = 10}),
      overlay({.name = "overlay-b",
               .requirements = req(label::kCapacityType, Requirement::exists()),
               .price = "23",
               .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(conflicting(r, overlays) == std::vector<std::string>{"overlay-a"});
  CHECK(r.conflicts.at(0).with == 1);
  // overlay-a applies nowhere, not even to c5.large where overlay-b already set the price.
  CHECK(price_of(catalog, r, 0, "m5.large", "us-east-1a", CapacityType::OnDemand) == 23.0);
  CHECK(price_of(catalog, r, 0, "c5.large", "us-east-1b", CapacityType::OnDemand) == 23.0);
}

// upstream: "should fail with pricing updates are the same overlays with overlapping
// requirements": equal prices still conflict.
TEST_CASE("equal-weight overlays conflict even when their prices are equal", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "overlay-a", .adjustment = "+100", .weight = 10}),
      overlay({.name = "overlay-b", .adjustment = "+100", .weight = 10})};
  CHECK(conflicting(resolve_node_overlays(catalog, pools, overlays), overlays) ==
        std::vector<std::string>{"overlay-a"});
}

// upstream: "should succeed with requirements overlays don't overlap" (instance types) and
// "should pass with conflicting pricing updates overlays with mutually exclusive requirements"
TEST_CASE("equal-weight overlays on disjoint instance types both apply", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "overlay-a",
               .requirements = req(label::kInstanceFamily, in({"m5"})),
               .price = "54",
               .weight = 10}),
      overlay({.name = "overlay-b",
               .requirements = req(label::kInstanceFamily, in({"g5"})),
               .price = "23",
               .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(r.conflicts.empty());
  CHECK(price_of(catalog, r, 0, "m5.xlarge", "us-east-1a", CapacityType::Spot) == 54.0);
  CHECK(price_of(catalog, r, 0, "g5.xlarge", "us-east-1a", CapacityType::Spot) == 23.0);
  CHECK(price_of(catalog, r, 0, "c5.large", "us-east-1a", CapacityType::OnDemand) == 0.085);
}

// upstream: "should fail with requirements overlays overlap on zone", "... on capacity type"
// and "should succeed with requirements overlays don't overlap" (offering requirements)
TEST_CASE("overlays conflict per offering: a shared zone conflicts and disjoint zones do not",
          "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> shared{
      overlay({.name = "overlay-a",
               .requirements = req(label::kZone, in({"us-east-1a"})),
               .price = "1",
               .weight = 10}),
      overlay({.name = "overlay-b",
               .requirements = req(label::kZone, in({"us-east-1a", "us-east-1b"})),
               .price = "2",
               .weight = 10})};
  CHECK(conflicting(resolve_node_overlays(catalog, pools, shared), shared) ==
        std::vector<std::string>{"overlay-a"});

  const std::vector<NodeOverlay> spot_vs_all{
      overlay({.name = "overlay-a",
               .requirements = req(label::kCapacityType, in({"spot"})),
               .price = "1",
               .weight = 10}),
      overlay({.name = "overlay-b",
               .requirements = req(label::kCapacityType, Requirement::exists()),
               .price = "2",
               .weight = 10})};
  CHECK(conflicting(resolve_node_overlays(catalog, pools, spot_vs_all), spot_vs_all) ==
        std::vector<std::string>{"overlay-a"});

  const std::vector<NodeOverlay> disjoint{
      overlay({.name = "overlay-a",
               .requirements = req(label::kZone, in({"us-east-1a"})),
               .price = "1",
               .weight = 10}),
      overlay({.name = "overlay-b",
               .requirements = req(label::kZone, in({"us-east-1b"})),
               .price = "2",
               .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, disjoint);
  CHECK(r.conflicts.empty());
  CHECK(price_of(catalog, r, 0, "m5.large", "us-east-1a", CapacityType::Spot) == 1.0);
  CHECK(price_of(catalog, r, 0, "m5.large", "us-east-1b", CapacityType::Spot) == 2.0);
}

// upstream: "should pass with conflicting pricing update overlays with mutually exclusive
// weights" and "should apply higher weight overlay when multiple overlays match the same
// instance type"
TEST_CASE("of two price overlays on one offering the heavier one's price applies", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "overlay-a", .price = "34", .weight = 10}),
      overlay({.name = "overlay-b", .adjustment = "-50%", .weight = 20})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(r.conflicts.empty());
  CHECK(price_of(catalog, r, 0, "m5.large", "us-east-1a", CapacityType::OnDemand) == 0.048);
}

// upstream: Instance Type Controller, Price Updates, Requirements: Price "13234.223" →
// 13234.223, PriceAdjustment "+1000" → 1001.020 on a 1.020 offering; an overlay that does not
// select the type leaves 1.02
TEST_CASE("price sets the price and priceAdjustment moves it on the selected types only",
          "[scheduling]") {
  std::vector<InstanceType> types{make_type({.name = "m5.large", .on_demand = 1.020}),
                                  make_type({.name = "c5.large", .on_demand = 1.020})};
  const Catalog catalog(std::move(types), "test");
  const std::vector<NodePool> pools{make_pool("default")};
  const Requirements m5 = req(label::kInstanceType, in({"m5.large"}));
  const OverlayResolution set = resolve_node_overlays(
      catalog, pools, std::vector{overlay({.requirements = m5, .price = "13234.223"})});
  CHECK(price_of(catalog, set, 0, "m5.large", "us-east-1a", CapacityType::OnDemand) == 13234.223);
  CHECK(price_of(catalog, set, 0, "c5.large", "us-east-1a", CapacityType::OnDemand) == 1.02);
  const OverlayResolution add = resolve_node_overlays(
      catalog, pools, std::vector{overlay({.requirements = m5, .adjustment = "+1000"})});
  CHECK(price_of(catalog, add, 0, "m5.large", "us-east-1a", CapacityType::OnDemand) ==
        Approx(1001.020).epsilon(1e-12));
}

// upstream: "should only apply override for nodepool that defined in the overlay requirements"
// and "should only apply price adjustments for nodeclaim spec labels that defined in the overlay
// requirements"; store_test "should apply different overlays to different node pools"
TEST_CASE("an overlay on karpenter.sh/nodepool or a template label applies to that pool only",
          "[scheduling]") {
  const Catalog catalog = small_catalog();
  NodePool labelled = make_pool("labelled");
  labelled.labels = {{"team", "ml"}};
  const std::vector<NodePool> pools{make_pool("default"), labelled};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "by-pool",
               .requirements = req(label::kNodePool, in({"default"})),
               .capacity = {{kFuse, 3}},
               .weight = 5}),
      overlay({.name = "by-label", .requirements = req("team", in({"ml"})), .adjustment = "-10%"})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(r.conflicts.empty());
  CHECK(capacity_of(catalog, r, 0, "m5.large", kFuse) == 3);
  CHECK(r.pools[1].capacity_by_type.empty());
  CHECK(r.pools[0].price_by_offering.empty());
  CHECK(price_of(catalog, r, 1, "g5.xlarge", "us-east-1a", CapacityType::OnDemand) ==
        Approx(1.006 * 0.9).epsilon(1e-12));
}

// upstream: "should fail with conflicting capacity overlays with overlapping requirements" and
// "should pass with capacity adjustment are the same overlays with overlapping requirements"
// (which expects the Conflict too); "should pass with non conflicting capacity overlays with
// overlapping requirements" (different resources)
TEST_CASE("equal-weight capacity overlays conflict on a shared resource only", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const Requirements a = req(label::kInstanceType, in({"g5.xlarge", "m5.large"}));
  const Requirements b = req(label::kInstanceType, in({"g5.xlarge", "g4dn.xlarge"}));
  const std::vector<NodeOverlay> same{
      overlay({.name = "overlay-a", .requirements = a, .capacity = {{kFuse, 54}}, .weight = 10}),
      overlay({.name = "overlay-b", .requirements = b, .capacity = {{kFuse, 54}}, .weight = 10})};
  CHECK(conflicting(resolve_node_overlays(catalog, pools, same), same) ==
        std::vector<std::string>{"overlay-a"});

  const std::vector<NodeOverlay> different{
      overlay({.name = "overlay-a",
               .requirements = a,
               .capacity = {{resource::kNvidiaGpu, 7}},
               .weight = 10}),
      overlay({.name = "overlay-b", .requirements = b, .capacity = {{kFuse, 54}}, .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, different);
  CHECK(r.conflicts.empty());
  CHECK(capacity_of(catalog, r, 0, "g5.xlarge", kFuse) == 54);
  CHECK(capacity_of(catalog, r, 0, "g5.xlarge", resource::kNvidiaGpu) == 7);
  CHECK(capacity_of(catalog, r, 0, "m5.large", kFuse) == -1);
}

// upstream: "should update capacity for one instance types from multiple overlays" and "should
// pass with conflicting capacity overlays with mutually exclusive weights"
TEST_CASE("a lighter capacity overlay adds only the resources heavier ones left unset",
          "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "heavy", .capacity = {{resource::kNvidiaGpu, 7}}, .weight = 20}),
      overlay(
          {.name = "light", .capacity = {{resource::kNvidiaGpu, 1}, {kFuse, 2}}, .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(r.conflicts.empty());
  CHECK(capacity_of(catalog, r, 0, "g5.xlarge", resource::kNvidiaGpu) == 7);
  CHECK(capacity_of(catalog, r, 0, "g5.xlarge", kFuse) == 2);
}

// upstream: "should that there is not a partial application for nodepools": an overlay that
// conflicts in one NodePool applies in none
TEST_CASE("an overlay that conflicts in one pool applies in no pool", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("alpha"), make_pool("beta")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "all", .adjustment = "+1", .weight = 10}),
      overlay({.name = "zz-beta",
               .requirements = req(label::kNodePool, in({"beta"})),
               .price = "5",
               .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  // zz-beta sorts first (name descending), so "all" conflicts in beta and applies in alpha
  // neither.
  CHECK(conflicting(r, overlays) == std::vector<std::string>{"all"});
  CHECK(r.pools[0].price_by_offering.empty());
  CHECK(price_of(catalog, r, 1, "m5.large", "us-east-1a", CapacityType::OnDemand) == 5.0);
}

// upstream: "should apply pricing and capacity adjustment from two overlays on the same instance
// type"
TEST_CASE("a price overlay and a capacity overlay both apply to one type", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const Requirements g5 = req(label::kInstanceType, in({"g5.xlarge"}));
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "price", .requirements = g5, .adjustment = "-20%", .weight = 10}),
      overlay({.name = "capacity", .requirements = g5, .capacity = {{kFuse, 4}}, .weight = 10})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(r.conflicts.empty());
  CHECK(price_of(catalog, r, 0, "g5.xlarge", "us-east-1b", CapacityType::Spot) ==
        Approx(0.45 * 0.8).epsilon(1e-12));
  CHECK(capacity_of(catalog, r, 0, "g5.xlarge", kFuse) == 4);
}

// Karpenter's Compatible: a label the overlay asks for positively must be defined on the type.
TEST_CASE("an overlay on a GPU label does not select a type without GPUs", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "gpus",
               .requirements = req(label::kGpuCount, Requirement::exists()),
               .price = "9"})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  CHECK(price_of(catalog, r, 0, "g4dn.xlarge", "us-east-1a", CapacityType::OnDemand) == 9.0);
  CHECK(price_of(catalog, r, 0, "m5.large", "us-east-1a", CapacityType::OnDemand) == 0.096);
  CHECK(r.matched == std::vector<std::uint8_t>{1});
}

// cloudprovider.AdjustedPrice and the CRD's patterns (nodeoverlay_validation_test.go's price
// and priceAdjustment tables).
TEST_CASE("overlay prices parse as the CRD's patterns allow", "[scheduling]") {
  for (std::string_view bad : {"+42", ".5", "42.", "42%", "3,14", "1e10", "0x42", "forty-two",
                               "42a", "42 ", " 42", "42.0.0", "-", ".", "-.42", "-129"})
    CHECK_FALSE(parse_overlay_price(bad));
  CHECK(parse_overlay_price("43")->value == 43.0);
  CHECK(parse_overlay_price("34.43")->value == 34.43);
  for (std::string_view bad : {"1%", "1", "1.3", "-100.0%", "-101.1%", "+", "+5.", "-x"})
    CHECK_FALSE(parse_price_adjustment(bad));
  for (std::string_view good :
       {"+1%", "-1%", "-100%", "+100.102%", "+298%", "+43", "-43", "+34.43", "-34.43", "-129"})
    CHECK(parse_price_adjustment(good));
  CHECK(adjusted_price(2.0, *parse_price_adjustment("-25%")) == 1.5);
  CHECK(adjusted_price(2.0, *parse_price_adjustment("-100%")) == 0.0);
  CHECK(adjusted_price(2.0, *parse_price_adjustment("-3")) == 0.0);  // never below 0
  CHECK(adjusted_price(2.0, *parse_price_adjustment("+0.5")) == 2.5);
  CHECK(adjusted_price(2.0, *parse_overlay_price("0.75")) == 0.75);
}

// Limits count the overlaid capacity, as Karpenter's limits read the instance type's capacity
// after the overlay decorator: a 1-GPU type overlaid to 4 shared GPUs takes 4 of a limit of 4.
TEST_CASE("NodePool limits count an overlay's capacity", "[scheduling]") {
  const Catalog catalog = small_catalog();
  NodePool gpu = make_pool("gpu");
  gpu.requirements.add(std::string(label::kInstanceType), in({"g5.xlarge"}));
  gpu.limits.resources = Resources{};
  gpu.limits.resources->operator[](resource::kNvidiaGpu) = 4;
  gpu.limits.set_mask[resource::kNvidiaGpu] = 1;
  const std::vector<NodePool> pools{gpu};
  const std::vector<NodeOverlay> overlays{
      overlay({.name = "shared", .capacity = {{resource::kNvidiaGpu, 4}}})};
  const OverlayResolution r = resolve_node_overlays(catalog, pools, overlays);
  const SchedulingContext ctx(catalog, pools, {}, {}, {}, r.pools);
  const std::uint32_t g5 = type_index(catalog, "g5.xlarge");
  CHECK(ctx.pools()[0].capacity[g5][resource::kNvidiaGpu] == 4);
  CHECK(ctx.pools()[0].allocatable[g5][resource::kNvidiaGpu] == 4);
  // Eight 1-GPU pods: one node of 4 shared GPUs fits the limit; a second would pass it.
  Problem problem;
  problem.add(make_pod({.cpu_millis = 100, .memory_mib = 128, .gpus = 1}), 8);
  Scheduler scheduler(ctx);
  const SolveResult result = scheduler.solve(problem.input());
  REQUIRE(result.claims.size() == 1);
  CHECK(result.claims[0].pods.size() == 4);
  CHECK(result.failures.size() == 4);
}
