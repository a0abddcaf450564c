#include "fleetsim/cloudprovider/aws/launch_filters.hpp"

#include <algorithm>
#include <limits>

namespace fleetsim {

namespace {

bool is_exotic(const InstanceType& t) {
  return t.has_gpu() || t.size.find("metal") != std::string::npos;
}

}  // namespace

LaunchPlan plan_launch(const PriceSource& prices, const Requirements& requirements,
                       std::span<const InstanceTypeOption> options,
                       std::span<const std::uint8_t> offering_usable,
                       std::span<const OverlayPrice> price_by_offering) {
  const Catalog& catalog = prices.catalog();
  const auto& types = catalog.types();
  auto price = [&](std::uint32_t t, std::size_t i) {
    const std::uint32_t g = catalog.offering_index(t, i);
    return price_by_offering.empty()
               ? prices.offering_price(g)
               : adjusted_price(prices.offering_price(g), price_by_offering[g]);
  };
  const Requirement* zone_req = requirements.get(label::kZone);
  const Requirement* capacity_req = requirements.get(label::kCapacityType);
  // A claim that held reservations in its solve launches into one of them only.
  const Requirement* reservation_req = requirements.get(label::kCapacityReservationId);
  std::uint8_t allowed = 0;
  for (CapacityType ct : {CapacityType::OnDemand, CapacityType::Spot, CapacityType::Reserved})
    if (capacity_req == nullptr || capacity_req->allows(to_string(ct))) allowed |= capacity_bit(ct);
  const std::uint8_t spot = capacity_bit(CapacityType::Spot);
  const std::uint8_t on_demand = capacity_bit(CapacityType::OnDemand);
  const std::uint8_t reserved = capacity_bit(CapacityType::Reserved);
  // Offering i of type t, if the claim may launch it with one of the `capacity` types now.
  auto usable = [&](std::uint32_t t, std::size_t i, std::uint8_t capacity) {
    const Offering& o = types[t].offerings[i];
    return (zone_req == nullptr || zone_req->allows(o.zone)) &&
           (capacity_bit(o.capacity_type) & capacity) &&
           (reservation_req == nullptr || o.reservation < 0 ||
            reservation_req->allows(
                catalog.reservations()[static_cast<std::size_t>(o.reservation)].id)) &&
           (offering_usable.empty() || offering_usable[catalog.offering_index(t, i)] != 0);
  };
  auto offers = [&](std::uint32_t t, std::uint8_t capacity) {
    for (std::size_t i = 0; i < types[t].offerings.size(); ++i)
      if (usable(t, i, capacity)) return true;
    return false;
  };
  const bool min_values = requirements.has_min_values();

  // Karpenter AWS filterInstanceTypes, then getCapacityType on what is left.
  // Compatible-available: a usable offering of any capacity type the claim allows. `kept` holds
  // option indices, in the claim's order.
  std::vector<std::uint32_t> kept;
  for (std::uint32_t k = 0; k < options.size(); ++k)
    if (offers(options[k].type, allowed)) kept.push_back(k);
  auto type_of = [&](std::uint32_t k) -> const InstanceType& { return types[options[k].type]; };
  LaunchPlan plan;
  if (kept.empty()) return plan;
  // Exotic filter: GPU, accelerator and metal types only when nothing ordinary remains.
  if (!min_values && std::any_of(kept.begin(), kept.end(),
                                 [&](std::uint32_t k) { return !is_exotic(type_of(k)); }))
    std::erase_if(kept, [&](std::uint32_t k) { return is_exotic(type_of(k)); });
  // Spot filter: drop types whose usable spot offerings all cost more than the cheapest usable
  // on-demand offering of any remaining type (types with a reserved offering stay). Karpenter
  // fails the launch if this leaves nothing; fleetsim keeps every type instead.
  if (!min_values && (allowed & spot) && (allowed & on_demand)) {
    double ceiling = std::numeric_limits<double>::infinity();
    bool any_spot = false;
    for (std::uint32_t k : kept) {
      const std::uint32_t t = options[k].type;
      for (std::size_t i = 0; i < types[t].offerings.size(); ++i) {
        if (usable(t, i, on_demand)) ceiling = std::min(ceiling, price(t, i));
        any_spot |= usable(t, i, spot);
      }
    }
    if (any_spot && ceiling != std::numeric_limits<double>::infinity()) {
      std::vector<std::uint32_t> cheaper;
      for (std::uint32_t k : kept) {
        const std::uint32_t t = options[k].type;
        bool has_spot = false, cheap = false;
        for (std::size_t i = 0; i < types[t].offerings.size(); ++i)
          if (usable(t, i, spot)) {
            has_spot = true;
            cheap |= price(t, i) <= ceiling;
          }
        if (!has_spot || cheap || ((allowed & reserved) && offers(t, reserved)))
          cheaper.push_back(k);
      }
      if (!cheaper.empty()) kept = std::move(cheaper);
    }
  }
  // Capacity type reserved > spot > on-demand, the first with a usable offering left.
  plan.capacity_type = CapacityType::OnDemand;
  for (CapacityType ct : {CapacityType::Reserved, CapacityType::Spot}) {
    const std::uint8_t bit = capacity_bit(ct);
    if ((allowed & bit) && std::any_of(kept.begin(), kept.end(), [&](std::uint32_t k) {
          return offers(options[k].type, bit);
        })) {
      plan.capacity_type = ct;
      break;
    }
  }
  const std::uint8_t chosen = capacity_bit(plan.capacity_type);

  // Types in the claim's (price) order, truncated as the fleet request is.
  if (kept.size() > kMaxFleetInstanceTypes) kept.resize(kMaxFleetInstanceTypes);
  for (std::uint32_t k : kept) {
    const std::uint32_t t = options[k].type;
    for (std::size_t i = 0; i < types[t].offerings.size(); ++i)
      if (usable(t, i, chosen))
        plan.candidates.push_back(LaunchCandidate{.option = k,
                                                  .type = t,
                                                  .offering = static_cast<std::uint32_t>(i),
                                                  .price = price(t, i)});
  }
  std::stable_sort(plan.candidates.begin(), plan.candidates.end(),
                   [&](const LaunchCandidate& a, const LaunchCandidate& b) {
                     if (a.price != b.price) return a.price < b.price;
                     if (a.type != b.type) return types[a.type].name < types[b.type].name;
                     return a.offering < b.offering;
                   });
  return plan;
}

}  // namespace fleetsim
