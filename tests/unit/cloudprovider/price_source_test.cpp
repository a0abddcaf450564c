#include "fleetsim/cloudprovider/aws/price_source.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/cloudprovider/aws/ebs_volumes.hpp"
#include "unit/scheduling/builders.hpp"

using namespace fleetsim;

namespace {

constexpr std::int64_t kGiB = 1LL << 30;
constexpr double kHoursPerMonth = 730.0;  // AWS prices storage per GiB-month of 730 hours

// One m5.large in one zone, on-demand $0.096 and spot $0.04.
Catalog one_type() {
  return Catalog({test::make_type(
      {.name = "m5.large", .on_demand = 0.096, .spot = 0.04, .zones = {"us-east-1a"}})});
}

double volumes_price(std::span<const BlockDevice> volumes) {
  const Catalog catalog = one_type();
  return PriceSource(catalog).volumes_price_per_hour(volumes);
}

// A node launched from the catalog's offering.
Node node_of(const Catalog& catalog, CapacityType ct) {
  Node n;
  n.type = 0;
  n.instance_type = catalog.types()[0].name;
  n.zone = "us-east-1a";
  n.capacity_type = ct;
  return n;
}

}  // namespace

TEST_CASE("an offering costs the catalog's price until a traced change comes due",
          "[cloudprovider]") {
  const Catalog catalog = one_type();
  PriceSource prices(catalog);
  const std::uint32_t spot = *catalog.find_offering(0, "us-east-1a", CapacityType::Spot);
  const std::uint32_t on_demand = *catalog.find_offering(0, "us-east-1a", CapacityType::OnDemand);
  CHECK(prices.offering_price(on_demand) == 0.096);
  CHECK(prices.offering_price(spot) == 0.04);
  const Node node = node_of(catalog, CapacityType::Spot);
  CHECK(prices.instance_per_hour(node) == 0.04);

  prices.set_offering_price(spot, 0.05);
  CHECK(prices.offering_price(spot) == 0.05);
  CHECK(prices.offering_prices()[spot] == 0.05);
  CHECK(prices.instance_per_hour(node) == 0.05);  // a running spot instance pays the new price
  CHECK(prices.offering_price(on_demand) == 0.096);
}

TEST_CASE("EKS Auto Mode's fee is charged per type only when there is a fee table",
          "[cloudprovider]") {
  const Catalog catalog = one_type();
  const Node node = node_of(catalog, CapacityType::OnDemand);
  const PriceSource plain(catalog);
  CHECK_FALSE(plain.charges_fee());
  CHECK(plain.fee_per_hour(node) == 0.0);
  const PriceSource auto_mode(catalog, {0.01152});
  CHECK(auto_mode.charges_fee());
  CHECK(auto_mode.fee_per_hour(node) == 0.01152);
}

TEST_CASE("without block device mappings a node has Karpenter's 20 GiB gp3 root volume",
          "[cloudprovider]") {
  const std::vector<BlockDevice> none;
  CHECK(ebs_bytes(none) == 20 * kGiB);
  // 20 GiB × $0.08 per GiB-month.
  CHECK(volumes_price(none) == Approx(20 * 0.08 / kHoursPerMonth));
}

TEST_CASE("a gp3 volume at its baseline costs only its size", "[cloudprovider]") {
  const std::vector<BlockDevice> v{{.device_name = "/dev/xvda",
                                    .size_bytes = 100 * kGiB,
                                    .type = EbsVolumeType::gp3,
                                    .iops = 3000,
                                    .throughput_mibps = 125}};
  CHECK(volumes_price(v) == Approx(100 * 0.08 / kHoursPerMonth));
}

TEST_CASE("gp3 IOPS above 3000 and throughput above 125 MiB/s are charged", "[cloudprovider]") {
  const std::vector<BlockDevice> v{{.device_name = "/dev/xvda",
                                    .size_bytes = 200 * kGiB,
                                    .type = EbsVolumeType::gp3,
                                    .iops = 6000,
                                    .throughput_mibps = 250}};
  // 200 GiB × 0.08 = 16, (6000 − 3000) IOPS × 0.005 = 15, (250 − 125) MiB/s × 0.04 = 5: $36 a
  // month.
  CHECK(volumes_price(v) == Approx(36.0 / kHoursPerMonth));
}

TEST_CASE("io2 charges every provisioned IOPS", "[cloudprovider]") {
  const std::vector<BlockDevice> v{{.device_name = "/dev/xvdb",
                                    .size_bytes = 100 * kGiB,
                                    .type = EbsVolumeType::io2,
                                    .iops = 5000}};
  // 100 GiB × 0.125 = 12.5, 5000 IOPS × 0.065 = 325: $337.5 a month.
  CHECK(volumes_price(v) == Approx(337.5 / kHoursPerMonth));
}

TEST_CASE("several volumes add up in size and price", "[cloudprovider]") {
  const std::vector<BlockDevice> v{
      {.device_name = "/dev/xvda", .size_bytes = 50 * kGiB, .type = EbsVolumeType::gp2},
      {.device_name = "/dev/xvdb", .size_bytes = 500 * kGiB, .type = EbsVolumeType::st1},
  };
  CHECK(ebs_bytes(v) == 550 * kGiB);
  // 50 × 0.10 + 500 × 0.045 = 5 + 22.5.
  CHECK(volumes_price(v) == Approx(27.5 / kHoursPerMonth));
}
