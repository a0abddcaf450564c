#include "fleetsim/catalog/catalog_loader.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "catalog_test_util.hpp"
#include "fleetsim/core/error.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Loads a catalog that must fail and returns the error.
CatalogError load_error(const TempCatalog& c) {
  try {
    load_catalog(c.dir());
  } catch (const CatalogError& e) {
    return e;
  }
  FAIL("expected a CatalogError");
  return CatalogError({}, "", "unreachable");
}

std::string types_with(std::string_view row) {
  return std::string(kTypesHeader) + std::string(row);
}
std::string offers_with(std::string_view row) {
  return std::string(kOfferingsHeader) + std::string(row);
}

}  // namespace

TEST_CASE("the fixture catalog loads, sorted, with offerings in (capacity type, zone) order",
          "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  REQUIRE(c.types().size() == 11);
  CHECK(c.types().front().name == "dl1.24xlarge");
  CHECK(c.types().back().name == "trn1.2xlarge");
  for (std::size_t i = 1; i < c.types().size(); ++i)
    CHECK(c.types()[i - 1].name < c.types()[i].name);
  CHECK(c.source() == fixture_dir("small").string());
  CHECK(c.zones() == std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"});
  CHECK(c.index_of("g5.xlarge") == std::optional<std::size_t>(3));
  CHECK(c.find("nope.large") == nullptr);

  const InstanceType* m5 = c.find("m5.xlarge");
  REQUIRE(m5);
  REQUIRE(m5->offerings.size() == 4);
  CHECK(m5->offerings[0].capacity_type == CapacityType::OnDemand);
  CHECK(m5->offerings[0].zone == "us-east-1a");
  CHECK(m5->offerings[1].zone == "us-east-1b");
  CHECK(m5->offerings[2].capacity_type == CapacityType::Spot);
  CHECK(m5->offerings[2].zone == "us-east-1a");
  CHECK(m5->offerings[2].interruption_bucket == "<5%");
  CHECK(m5->offerings[3].price_per_hour == 0.065);
  CHECK(m5->cheapest_offering()->price_per_hour == 0.065);
  CHECK(m5->cheapest_offering(CapacityType::OnDemand)->zone == "us-east-1a");
  CHECK(m5->allocatable.cpu_millis() == 3920);
  CHECK(m5->allocatable.memory_bytes() == 14162 * kMib);
  CHECK(m5->network_gbps == 1.25);

  const InstanceType* p5 = c.find("p5.48xlarge");
  REQUIRE(p5);
  CHECK(p5->offerings[0].capacity == std::optional<std::int64_t>(2));
  CHECK_FALSE(p5->offerings[1].capacity);
  CHECK(p5->cheapest_offering(CapacityType::Spot) == nullptr);
  CHECK(p5->gpu_memory_mib == 81920);

  const InstanceType* inf2 = c.find("inf2.xlarge");
  REQUIRE(inf2);
  CHECK(inf2->accelerator_manufacturer == "aws");
  CHECK(inf2->allocatable[resource::kNeuronCore] == 2);
}

TEST_CASE("a spot price tie goes to the first zone", "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  const Offering* spot = c.find("g5.xlarge")->cheapest_offering(CapacityType::Spot);
  REQUIRE(spot);
  CHECK(spot->zone == "us-east-1b");
  CHECK(spot->price_per_hour == 0.397);
}

TEST_CASE("columns may come in any order, with extra columns, quotes, CRLF and a BOM",
          "[catalog]") {
  TempCatalog c(
      "\xEF\xBB\xBF"
      "max_pods,notes,instance_type,family,category,generation,size,arch,vcpu,memory_mib,gpu_count,"
      "gpu_name,gpu_manufacturer,gpu_memory_mib,accelerator_name,accelerator_count,network_gbps,"
      "accelerator_manufacturer\r\n"
      "58,\"general purpose, 4 vCPU\",m5.xlarge,m5,m,5,xlarge,amd64,4,16384,0,,,,,0,1.25,\r\n"
      "\r\n"
      "58,\"say "
      "\"\"hi\"\"\",inf2.xlarge,inf2,inf,2,xlarge,amd64,4,16384,0,,,,inferentia2,1,2.083,AWS\r\n",
      "capacity,price_usd_per_hour,zone,instance_type,interruption_bucket,capacity_type\r\n"
      ",0.192,us-east-1a,m5.xlarge,,on-demand\r\n"
      ",0.7582,\"us-east-1a\",inf2.xlarge,,on-demand\r\n");
  Catalog cat = load_catalog(c.dir());
  REQUIRE(cat.types().size() == 2);
  CHECK(cat.find("m5.xlarge")->max_pods == 58);
  CHECK(cat.find("inf2.xlarge")->accelerator_manufacturer == "aws");
  CHECK(cat.find("inf2.xlarge")->offerings[0].zone == "us-east-1a");
}

TEST_CASE("a missing file, an empty file or a missing column is located", "[catalog]") {
  SECTION("no instance-types.csv") {
    TempCatalog c(std::nullopt, offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().file == c.file("instance-types.csv"));
    CHECK(e.message() == "catalog table file not found");
  }
  SECTION("no offerings.csv") {
    TempCatalog c(types_with(kM5Row), std::nullopt);
    CHECK(load_error(c).where().file == c.file("offerings.csv"));
  }
  SECTION("a missing directory") {
    CHECK_THROWS_WITH(load_catalog("/nonexistent/fleetsim/catalog"),
                      "/nonexistent/fleetsim/catalog: catalog directory not found");
  }
  SECTION("an empty file") {
    TempCatalog c("", offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().line == 1);
    CHECK(e.message() == "catalog table is empty; expected a header row such as \"" +
                             std::string(kTypesHeader.substr(0, kTypesHeader.size() - 1)) + "\"");
  }
  SECTION("a file of blank lines is empty") {
    TempCatalog c(types_with(kM5Row), "\n  \r\n");
    auto e = load_error(c);
    CHECK(e.where().file == c.file("offerings.csv"));
    CHECK_THAT(e.message(), Catch::StartsWith("catalog table is empty"));
  }
  SECTION("a missing column names file:1 and the column") {
    TempCatalog c("instance_type,family\nm5.xlarge,m5\n", offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().file == c.file("instance-types.csv"));
    CHECK(e.where().line == 1);
    CHECK(e.field() == "category");
    CHECK(std::string(e.what()) ==
          c.file("instance-types.csv") +
              ":1:1: category: missing column (the header has: instance_type, family)");
  }
  SECTION("a missing offerings column") {
    TempCatalog c(types_with(kM5Row),
                  "instance_type,zone,capacity_type,price_usd_per_hour,capacity\n");
    auto e = load_error(c);
    CHECK(e.field() == "interruption_bucket");
    CHECK(e.where().line == 1);
  }
  SECTION("a header only is an error, not an empty catalog") {
    TempCatalog c(std::string(kTypesHeader), offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().file == c.file("instance-types.csv"));
    CHECK(e.where().line == 1);
    CHECK(e.message() == "catalog table has no rows (only a header)");
    TempCatalog no_offerings(types_with(kM5Row), std::string(kOfferingsHeader) + "\n\n");
    CHECK(load_error(no_offerings).where().file == no_offerings.file("offerings.csv"));
  }
  SECTION("a file over 64 MiB is refused before reading") {
    TempCatalog c(types_with(kM5Row), offers_with(kM5Offer));
    std::filesystem::resize_file(c.dir() / "offerings.csv", (64ULL << 20) + 1);
    auto e = load_error(c);
    CHECK(e.where().file == c.file("offerings.csv"));
    CHECK(e.message() ==
          "file is 67108865 bytes; a catalog table file may be at most 67108864 bytes");
  }
}

TEST_CASE("each bad value names file, line, column and field", "[catalog]") {
  struct Case {
    std::string row;
    int col;
    std::string field;
    std::string message;
  };
  // Line 2 of instance-types.csv in every case.
  auto [row, col, field, message] = GENERATE(values<Case>({
      {"m5.xlarge,m5,m,5,xlarge,amd64,four,16384,0,,,,,0,1.25,58", 31, "vcpu",
       "\"four\" is not a whole number"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,-16384,0,,,,,0,1.25,58", 33, "memory_mib",
       "must not be negative (got -16384)"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,0,16384,0,,,,,0,1.25,58", 31, "vcpu",
       "must be at least 1 (got 0)"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,99999999999999999999,0,,,,,0,1.25,58", 33, "memory_mib",
       "99999999999999999999 is too large (at most 1073741824)"},
      {"m5.xlarge,m5,m,5,xlarge,x86,4,16384,0,,,,,0,1.25,58", 25, "arch",
       "\"x86\" is not a known arch; expected amd64 or arm64"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,16384,0,,,,,0,fast,58", 47, "network_gbps",
       "\"fast\" is not a number"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,16384,0,,,,,0,1.25,", 52, "max_pods",
       "is empty; expected a whole number"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,16384,2,,,,,0,1.25,58", 41, "gpu_name",
       "is empty but gpu_count is 2"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,16384,1,a10g,,,,0,1.25,58", 46, "gpu_manufacturer",
       "is empty but gpu_name is set"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,16384,0,,,,,3,1.25,58", 44, "accelerator_name",
       "is empty but accelerator_count is 3"},
      {"m5.xlarge,m6,m,5,xlarge,amd64,4,16384,0,,,,,0,1.25,58", 1, "instance_type",
       "\"m5.xlarge\" does not match family \"m6\" and size \"xlarge\" (expected \"m6.xlarge\")"},
      {"m5.xlarge,m5,m,5.5,xlarge,amd64,4,16384,0,,,,,0,1.25,58", 16, "generation",
       "\"5.5\" is not a whole number"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,16384,0,,,,,0,nan,58", 47, "network_gbps",
       "\"nan\" is not a number"},
      {"m5.xlarge,m5,m,5,xlarge,amd64,4,200,0,,,,,0,1.25,58", 33, "memory_mib",
       "200 MiB leaves no allocatable memory after the VM overhead, kube-reserved for 58 pods and "
       "the "
       "eviction threshold"},
  }));
  TempCatalog c(types_with(row + "\n"), offers_with(kM5Offer));
  auto e = load_error(c);
  INFO(e.what());
  CHECK(e.where().file == c.file("instance-types.csv"));
  CHECK(e.where().line == 2);
  CHECK(e.where().col == col);
  CHECK(e.field() == field);
  CHECK(e.message() == message);
}

TEST_CASE("a catalog whose provider is not AWS names its types as it likes (issue 12, finding 10)",
          "[catalog]") {
  const std::string header =
      "instance_type,family,category,generation,size,arch,vcpu,memory_mib,gpu_count,gpu_name,"
      "gpu_manufacturer,gpu_memory_mib,accelerator_name,accelerator_count,network_gbps,max_pods,"
      "provider\n";
  const std::string kwok = "m-4x-amd64-linux,m,m,1,4x,amd64,4,16384,0,,,,,0,1.25,58,kwok\n";
  TempCatalog c(header + kwok, offers_with("m-4x-amd64-linux,us-east-1a,on-demand,0.2,,\n"));
  Catalog catalog = load_catalog(c.dir());
  REQUIRE(catalog.types().size() == 1);
  CHECK(catalog.types()[0].name == "m-4x-amd64-linux");
  // The AWS rule still holds where the provider is aws, or not given.
  TempCatalog aws(header + "m-4x-amd64-linux,m,m,1,4x,amd64,4,16384,0,,,,,0,1.25,58,aws\n",
                  offers_with("m-4x-amd64-linux,us-east-1a,on-demand,0.2,,\n"));
  CHECK(load_error(aws).message() ==
        "\"m-4x-amd64-linux\" does not match family \"m\" and size \"4x\" (expected \"m.4x\")");
  TempCatalog bad(header + "m-4x,m,m,1,4x,amd64,4,16384,0,,,,,0,1.25,58,Not Valid\n",
                  offers_with("m-4x,us-east-1a,on-demand,0.2,,\n"));
  CHECK(load_error(bad).field() == "provider");
}

TEST_CASE("bad offerings are located", "[catalog]") {
  struct Case {
    std::string rows;
    int line, col;
    std::string field;
    std::string message;
  };
  auto [rows, line, col, field, message] = GENERATE(values<Case>({
      {"m5.xlarge,us-east-1a,preemptible,0.1,,", 2, 22, "capacity_type",
       "\"preemptible\" is not a capacity type; expected on-demand, spot or reserved"},
      {"m5.xlarge,us-east-1a,on-demand,-0.1,,", 2, 32, "price_usd_per_hour",
       "must not be negative (got -0.1)"},
      {"m5.xlarge,us-east-1a,on-demand,cheap,,", 2, 32, "price_usd_per_hour",
       "\"cheap\" is not a number"},
      {"m5.xlarge,us-east-1a,spot,0.1,<50%,", 2, 31, "interruption_bucket",
       "\"<50%\" is not a Spot Advisor band; expected <5%, 5-10%, 10-15%, 15-20% or >20%"},
      {"m5.xlarge,us-east-1a,on-demand,0.1,<5%,", 2, 36, "interruption_bucket",
       "must be empty for on-demand offerings"},
      {"m5.xlarge,us-east-1a,on-demand,0.1,,-3", 2, 37, "capacity",
       "must not be negative (got -3)"},
      {"m5.xlarge,us-east-1a,on-demand,0.1,,\nm5.xlarge,us-east-1a,on-demand,0.2,,", 3, 1,
       "instance_type", "duplicate offering (m5.xlarge, us-east-1a, on-demand) (first on line 2)"},
      {"m5.xlarge,us-east-1a,on-demand,0.1,,\nm9.huge,us-east-1a,on-demand,0.2,,", 3, 1,
       "instance_type", "unknown instance type \"m9.huge\" (not in instance-types.csv)"},
      {"m5.xlarge,us east 1a,on-demand,0.1,,", 2, 11, "zone",
       "\"us east 1a\" is not a valid label value (at most 63 letters, digits, '-', '_' or '.', "
       "starting "
       "and ending with a letter or digit)"},
      {"m5.xlarge,,on-demand,0.1,,", 2, 11, "zone", "is empty"},
  }));
  TempCatalog c(types_with(kM5Row), offers_with(rows + "\n"));
  auto e = load_error(c);
  INFO(e.what());
  CHECK(e.where().file == c.file("offerings.csv"));
  CHECK(e.where().line == line);
  CHECK(e.where().col == col);
  CHECK(e.field() == field);
  CHECK(e.message() == message);
}

TEST_CASE("duplicate types, types without offerings and malformed CSV are errors", "[catalog]") {
  SECTION("duplicate instance type") {
    TempCatalog c(types_with(std::string(kM5Row) + std::string(kM5Row)), offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().line == 3);
    CHECK(e.where().col == 1);
    CHECK(e.message() == "duplicate instance type \"m5.xlarge\" (first on line 2)");
  }
  SECTION("a type with no offerings") {
    TempCatalog c(
        types_with(std::string(kM5Row) + "m5.large,m5,m,5,large,amd64,2,8192,0,,,,,0,0.75,29\n"),
        offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().file == c.file("instance-types.csv"));
    CHECK(e.where().line == 3);
    CHECK(e.field() == "instance_type");
    CHECK(e.message() == "instance type \"m5.large\" has no offerings in offerings.csv");
  }
  SECTION("more zones than the solver's zone bits (issue 13: it was an assertion)") {
    std::string offers;
    for (int z = 0; z < 65; ++z) offers += fmt::format("m5.xlarge,zone-{:02},on-demand,0.1,,\n", z);
    TempCatalog c(types_with(kM5Row), offers_with(offers));
    auto e = load_error(c);
    CHECK(e.where().line == 66);
    CHECK(e.field() == "zone");
    CHECK(e.message() == "zone \"zone-64\" is zone 65; a catalog holds at most 64 zones");
  }
  SECTION("too few fields") {
    TempCatalog c(types_with("m5.xlarge,m5,m,5\n"), offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().line == 2);
    CHECK(e.message() == "expected 16 fields as in the header, found 4");
  }
  SECTION("too many fields points at the first extra one") {
    TempCatalog c(types_with(kM5Row), offers_with("m5.xlarge,us-east-1a,on-demand,0.1,,,extra\n"));
    auto e = load_error(c);
    CHECK(e.where().line == 2);
    CHECK(e.where().col == 38);
    CHECK(e.message() == "expected 6 fields as in the header, found 7");
  }
  SECTION("an unterminated quote") {
    TempCatalog c(types_with(kM5Row), offers_with("m5.xlarge,\"us-east-1a,on-demand,0.1,,\n"));
    auto e = load_error(c);
    CHECK(e.where().line == 2);
    CHECK(e.where().col == 11);
    CHECK(e.message() == "unterminated quoted field (a quoted field must end on its line)");
  }
  SECTION("text after a closing quote") {
    TempCatalog c(types_with(kM5Row), offers_with("m5.xlarge,\"us-east-1a\"x,on-demand,0.1,,\n"));
    auto e = load_error(c);
    CHECK(e.where().col == 23);
    CHECK(e.message() == "unexpected text after a closing quote");
  }
  SECTION("a column named twice") {
    TempCatalog c("instance_type,instance_type\n", offers_with(kM5Offer));
    auto e = load_error(c);
    CHECK(e.where().col == 15);
    CHECK(e.field() == "instance_type");
  }
}

TEST_CASE("capacity types and interruption bands round-trip", "[catalog]") {
  for (CapacityType ct : {CapacityType::OnDemand, CapacityType::Spot, CapacityType::Reserved})
    CHECK(parse_capacity_type(to_string(ct)) == ct);
  CHECK_FALSE(parse_capacity_type("Spot"));
  CHECK(is_interruption_bucket(">20%"));
  CHECK_FALSE(is_interruption_bucket("20%"));
}

TEST_CASE("the bundled us-east-1 catalog loads", "[catalog]") {
  if (!std::filesystem::exists(bundled_catalog_dir() / "instance-types.csv")) {
    WARN("no bundled catalog; skipped");
    return;
  }
  Catalog c = load_catalog(bundled_catalog_dir());
  CHECK(c.types().size() > 100);
  const InstanceType* g5 = c.find("g5.xlarge");
  REQUIRE(g5);
  CHECK(g5->allocatable[resource::kNvidiaGpu] == 1);
  CHECK(g5->allocatable.cpu_millis() == 3920);
  CHECK(g5->allocatable.memory_bytes() == 14162 * kMib);
  CHECK(g5->cheapest_offering(CapacityType::OnDemand)->price_per_hour == 1.006);
  for (const auto& t : c.types()) {
    INFO(t.name);
    CHECK_FALSE(t.offerings.empty());
    CHECK(t.allocatable.memory_bytes() > 0);
  }
}
