#include "fleetsim/cloudprovider/aws/price_source.hpp"

#include "fleetsim/cloudprovider/aws/ebs_volumes.hpp"
#include "fleetsim/cloudprovider/cloud_provider.hpp"

namespace fleetsim {

namespace {

constexpr double kHoursPerMonth = 730.0;  // AWS's convention for monthly prices
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double per_gib_month(EbsVolumeType t) {
  switch (t) {
    case EbsVolumeType::gp3:
      return 0.08;
    case EbsVolumeType::gp2:
      return 0.10;
    case EbsVolumeType::io1:
    case EbsVolumeType::io2:
      return 0.125;
    case EbsVolumeType::st1:
      return 0.045;
    case EbsVolumeType::sc1:
      return 0.015;
    case EbsVolumeType::standard:
      return 0.05;
  }
  return 0.08;
}

}  // namespace

PriceSource::PriceSource(const Catalog& catalog, std::vector<double> fee_by_type)
    : catalog_(catalog), fee_by_type_(std::move(fee_by_type)) {
  FLEETSIM_ASSERT(fee_by_type_.empty() || fee_by_type_.size() == catalog.types().size());
  prices_.reserve(catalog.offering_count());
  for (const InstanceType& t : catalog.types())
    for (const Offering& o : t.offerings) prices_.push_back(o.price_per_hour);
}

double PriceSource::instance_per_hour(const Node& node) const {
  return adjusted_price(prices_[offering_of(catalog_, node)], node.price_overlay);
}

double PriceSource::volumes_price_per_hour(std::span<const BlockDevice> volumes) const {
  if (volumes.empty())
    return static_cast<double>(aws_sizing::kDefaultRootVolumeBytes) / kGiB *
           per_gib_month(EbsVolumeType::gp3) / kHoursPerMonth;
  double monthly = 0;
  for (const BlockDevice& v : volumes) {
    monthly += static_cast<double>(v.size_bytes) / kGiB * per_gib_month(v.type);
    if (v.type == EbsVolumeType::gp3) {
      if (v.iops > 3000) monthly += 0.005 * static_cast<double>(v.iops - 3000);
      if (v.throughput_mibps > 125) monthly += 0.04 * static_cast<double>(v.throughput_mibps - 125);
    } else if (v.type == EbsVolumeType::io1 || v.type == EbsVolumeType::io2) {
      monthly += 0.065 * static_cast<double>(v.iops);
    }
  }
  return monthly / kHoursPerMonth;
}

}  // namespace fleetsim
