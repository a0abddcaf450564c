#include "fleetsim/catalog/catalog_listing.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "catalog_test_util.hpp"
#include "fleetsim/catalog/catalog_filter.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

std::vector<const InstanceType*> all_types(const Catalog& c) {
  std::vector<const InstanceType*> out;
  for (const auto& t : c.types()) out.push_back(&t);
  return out;
}

std::vector<std::string> names(const std::vector<CatalogRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.name);
  return out;
}

}  // namespace

TEST_CASE("a listing row summarises size, allocatable, GPUs and the cheapest offerings",
          "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  std::vector<CatalogRow> rows = catalog_rows(all_types(c));
  REQUIRE(rows.size() == 11);

  auto row = std::find_if(rows.begin(), rows.end(),
                          [](const CatalogRow& r) { return r.name == "g5.xlarge"; });
  REQUIRE(row != rows.end());
  const CatalogRow& g5 = *row;
  CHECK(g5.name == "g5.xlarge");
  CHECK(g5.vcpu == 4);
  CHECK(g5.memory_mib == 16384);
  CHECK(g5.alloc_cpu_millis == 3920);
  CHECK(g5.alloc_memory_mib == 14162);
  CHECK(g5.max_pods == 58);
  CHECK(g5.gpu_count == 1);
  CHECK(g5.gpu_name == "a10g");
  CHECK(g5.on_demand_price == 1.006);
  CHECK(g5.spot_price == 0.397);
  CHECK(g5.spot_zone == "us-east-1b");
  CHECK(g5.interruption_bucket == ">20%");

  const CatalogRow& trn1 = rows.back();
  CHECK(trn1.gpu_count == 1);
  CHECK(trn1.gpu_name == "trainium");
  CHECK_FALSE(trn1.spot_price);
  CHECK(trn1.spot_zone.empty());
}

TEST_CASE("listing rows sort by name or by price, unpriced last", "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  CHECK(names(catalog_rows(all_types(c), CatalogOrder::SpotPrice)) ==
        std::vector<std::string>{"m7g.large", "m5.xlarge", "inf2.xlarge", "g5.xlarge",
                                 "g5.12xlarge", "dl1.24xlarge", "g4ad.xlarge", "g6f.large",
                                 "p5.48xlarge", "t3.nano", "trn1.2xlarge"});
  // By name: family, then size as a user reads it, so g5.xlarge comes before g5.12xlarge.
  CHECK(names(catalog_rows(all_types(c), CatalogOrder::Name)) ==
        std::vector<std::string>{"dl1.24xlarge", "g4ad.xlarge", "g5.xlarge", "g5.12xlarge",
                                 "g6f.large", "inf2.xlarge", "m5.xlarge", "m7g.large",
                                 "p5.48xlarge", "t3.nano", "trn1.2xlarge"});
  CHECK(names(catalog_rows(all_types(c), CatalogOrder::OnDemandPrice)).front() == "t3.nano");
  CHECK(names(catalog_rows(all_types(c), CatalogOrder::OnDemandPrice)).back() == "p5.48xlarge");
}

TEST_CASE("the listing table is aligned, with '-' for absent values", "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  CatalogFilter f = parse_catalog_filter("type=g5.xlarge|t3.nano|g6f.large|p5.48xlarge");
  std::string table = format_catalog_table(catalog_rows(select_instance_types(c, f)));
  // One table row per source line reads best.
  // clang-format off
  CHECK(table ==
        "TYPE         VCPU  MEM GiB  ALLOC CPU  ALLOC GiB  PODS  GPUS       OD $/h  SPOT $/h  SPOT ZONE   INTERRUPT\n"
        "g5.xlarge       4       16      3920m       13.8    58  1x a10g    1.0060    0.3970  us-east-1b  >20%\n"
        "g6f.large       2        8      1930m        6.8    20  l4 slice   0.2020         -  -           -\n"
        "p5.48xlarge   192     2048    191450m     1893.0   100  8x h100   55.0400         -  -           -\n"
        "t3.nano         2      0.5      1930m        0.1     4  -          0.0052         -  -           -\n");
  // clang-format on
}

TEST_CASE("an empty listing is just the header", "[catalog]") {
  CHECK(format_catalog_table({}) ==
        "TYPE  VCPU  MEM GiB  ALLOC CPU  ALLOC GiB  PODS  GPUS  OD $/h  SPOT $/h  SPOT ZONE  "
        "INTERRUPT\n");
}
