#include "fleetsim/cloudprovider/aws/ebs_pricing.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

namespace {

constexpr std::int64_t kGiB = 1LL << 30;
constexpr double kHoursPerMonth = 730.0;  // AWS prices storage per GiB-month of 730 hours

}  // namespace

TEST_CASE("without block device mappings a node has Karpenter's 20 GiB gp3 root volume",
          "[cloudprovider]") {
  const std::vector<BlockDevice> none;
  CHECK(ebs_bytes(none) == 20 * kGiB);
  // 20 GiB × $0.08 per GiB-month.
  CHECK(ebs_price_per_hour(none) == Approx(20 * 0.08 / kHoursPerMonth));
}

TEST_CASE("a gp3 volume at its baseline costs only its size", "[cloudprovider]") {
  const std::vector<BlockDevice> v{{.device_name = "/dev/xvda",
                                    .size_bytes = 100 * kGiB,
                                    .type = EbsVolumeType::gp3,
                                    .iops = 3000,
                                    .throughput_mibps = 125}};
  CHECK(ebs_price_per_hour(v) == Approx(100 * 0.08 / kHoursPerMonth));
}

TEST_CASE("gp3 IOPS above 3000 and throughput above 125 MiB/s are charged", "[cloudprovider]") {
  const std::vector<BlockDevice> v{{.device_name = "/dev/xvda",
                                    .size_bytes = 200 * kGiB,
                                    .type = EbsVolumeType::gp3,
                                    .iops = 6000,
                                    .throughput_mibps = 250}};
  // 200 GiB × 0.08 = 16, (6000 − 3000) IOPS × 0.005 = 15, (250 − 125) MiB/s × 0.04 = 5: $36 a
  // month.
  CHECK(ebs_price_per_hour(v) == Approx(36.0 / kHoursPerMonth));
}

TEST_CASE("io2 charges every provisioned IOPS", "[cloudprovider]") {
  const std::vector<BlockDevice> v{{.device_name = "/dev/xvdb",
                                    .size_bytes = 100 * kGiB,
                                    .type = EbsVolumeType::io2,
                                    .iops = 5000}};
  // 100 GiB × 0.125 = 12.5, 5000 IOPS × 0.065 = 325: $337.5 a month.
  CHECK(ebs_price_per_hour(v) == Approx(337.5 / kHoursPerMonth));
}

TEST_CASE("several volumes add up in size and price", "[cloudprovider]") {
  const std::vector<BlockDevice> v{
      {.device_name = "/dev/xvda", .size_bytes = 50 * kGiB, .type = EbsVolumeType::gp2},
      {.device_name = "/dev/xvdb", .size_bytes = 500 * kGiB, .type = EbsVolumeType::st1},
  };
  CHECK(ebs_bytes(v) == 550 * kGiB);
  // 50 × 0.10 + 500 × 0.045 = 5 + 22.5.
  CHECK(ebs_price_per_hour(v) == Approx(27.5 / kHoursPerMonth));
}
