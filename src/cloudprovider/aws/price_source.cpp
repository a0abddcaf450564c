#include "fleetsim/cloudprovider/aws/price_source.hpp"

#include "fleetsim/cloudprovider/aws/ebs_volumes.hpp"
#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

constexpr double kHoursPerMonth = 730.0;  // AWS's convention for monthly prices

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
    : catalog_(catalog),
      fee_by_type_(std::move(fee_by_type)),
      reservation_ended_(catalog.reservations().size(), 0) {
  FLEETSIM_ASSERT(fee_by_type_.empty() || fee_by_type_.size() == catalog.types().size());
  prices_.reserve(catalog.offering_count());
  for (const InstanceType& t : catalog.types())
    for (const Offering& o : t.offerings) prices_.push_back(o.price_per_hour);
}

double PriceSource::instance_per_hour(const Node& node) const {
  // A reserved node is paid by its reservation's bill; once an ODCR ends it runs on at the
  // on-demand rate (its overlay priced the reserved offering, not this one).
  if (node.reservation >= 0) {
    if (!reservation_ended_[static_cast<std::size_t>(node.reservation)]) return 0.0;
    const std::optional<std::uint32_t> od =
        catalog_.find_offering(node.type, node.zone, CapacityType::OnDemand);
    return od ? prices_[*od] : 0.0;
  }
  return adjusted_price(prices_[offering_of(catalog_, node)], node.price_overlay);
}

double PriceSource::volumes_price_per_hour(std::span<const BlockDevice> volumes) const {
  if (volumes.empty())
    return static_cast<double>(aws_sizing::kDefaultRootVolumeBytes) / kGib *
           per_gib_month(EbsVolumeType::gp3) / kHoursPerMonth;
  double monthly = 0;
  for (const BlockDevice& v : volumes) {
    monthly += static_cast<double>(v.size_bytes) / kGib * per_gib_month(v.type);
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
