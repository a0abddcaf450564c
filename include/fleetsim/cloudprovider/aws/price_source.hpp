// The one source of AWS prices: what an offering costs an hour now (on-demand and spot from the
// catalog until a replayed spot price trace moves them), what a node's EBS volumes cost, and EKS
// Auto Mode's management fee per type. The EC2 model, its launch choice and the cost ledger all
// ask it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/cloudprovider/node_pricing.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

class PriceSource final : public NodePricing {
 public:
  // `fee_by_type`: Auto Mode's fee per catalog type ($ per instance-hour); empty without one.
  explicit PriceSource(const Catalog& catalog, std::vector<double> fee_by_type = {});

  const Catalog& catalog() const { return catalog_; }

  // The hourly price of a global offering now, and every offering's by global offering.
  double offering_price(std::uint32_t global_offering) const { return prices_[global_offering]; }
  std::span<const double> offering_prices() const { return prices_; }
  // A recorded price change came due (the spot market replays the trace at its times): from now
  // on the offering costs `price` an hour.
  void set_offering_price(std::uint32_t global_offering, double price) {
    prices_[global_offering] = price;
    ++revision_;
  }
  // Changes whenever offering_prices() does.
  std::uint64_t revision() const { return revision_; }

  // USD per hour for the volumes, from AWS's us-east-1 EBS price list (per GiB-month, 730 hours a
  // month): gp3 $0.08 (+$0.005 per IOPS over 3000, +$0.04 per MiB/s over 125), gp2 $0.10,
  // io1/io2 $0.125 (+$0.065 per provisioned IOPS), st1 $0.045, sc1 $0.015, standard $0.05.
  // Without volumes, Karpenter's default 20 GiB gp3 root volume.
  double volumes_price_per_hour(std::span<const BlockDevice> volumes) const;

  // Auto Mode's fee for a catalog type; 0 without a fee table.
  double fee_per_type_hour(std::uint32_t type) const {
    return fee_by_type_.empty() ? 0.0 : fee_by_type_[type];
  }

  // NodePricing. A node's instance costs its offering's price with its NodeOverlay's change.
  // A node's volumes are priced once, at its launch, from its NodeClass (EBS prices
  // do not move during a run): the node carries that figure.
  // A node in a reservation costs nothing by the hour while the reservation covers it (the
  // reservation is billed whole, RunResult's reservations); after an ODCR ends, its instances
  // run on as on-demand ones, at that price.
  double instance_per_hour(const Node& node) const override;
  // Reservation `r` no longer covers its running instances.
  void end_reservation_cover(std::size_t r) { reservation_ended_[r] = 1; }
  double volumes_per_hour(const Node& node) const override { return node.ebs_price_per_hour; }
  double fee_per_hour(const Node& node) const override { return fee_per_type_hour(node.type); }
  bool charges_fee() const override { return !fee_by_type_.empty(); }

 private:
  const Catalog& catalog_;
  std::vector<double> prices_;  // by global offering
  std::uint64_t revision_ = 0;
  std::vector<double> fee_by_type_;
  std::vector<std::uint8_t> reservation_ended_;  // by reservation
};

}  // namespace fleetsim
