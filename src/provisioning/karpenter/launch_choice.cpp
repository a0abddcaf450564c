#include "fleetsim/provisioning/karpenter/launch_choice.hpp"

#include <algorithm>
#include <limits>

namespace fleetsim {

namespace {

bool is_exotic(const InstanceType& t) {
  return t.has_gpu() || t.size.find("metal") != std::string::npos;
}

}  // namespace

LaunchPlan plan_launch(const SchedulingContext& context, const NewNodeClaim& claim,
                       std::span<const std::uint8_t> offering_usable) {
  const auto& types = context.catalog().types();
  const std::uint64_t zones = context.zone_mask(claim.requirements);
  const std::uint8_t allowed = SchedulingContext::capacity_mask(claim.requirements);
  const std::uint8_t spot = capacity_bit(CapacityType::Spot);
  const std::uint8_t on_demand = capacity_bit(CapacityType::OnDemand);
  const std::uint8_t reserved = capacity_bit(CapacityType::Reserved);
  auto usable = [&](const OfferingRef& o, std::uint8_t capacity) {
    return (zones >> o.zone & 1ULL) && (o.capacity & capacity) &&
           (offering_usable.empty() || offering_usable[o.global] != 0);
  };
  auto offers = [&](std::uint32_t t, std::uint8_t capacity) {
    for (const OfferingRef& o : context.offerings(t))
      if (usable(o, capacity)) return true;
    return false;
  };
  const bool min_values = claim.requirements.has_min_values();

  // Karpenter AWS filterInstanceTypes, then getCapacityType on what is left.
  // Compatible-available: a usable offering of any capacity type the claim allows.
  std::vector<std::uint32_t> kept;
  for (std::uint32_t t : claim.types)
    if (offers(t, allowed)) kept.push_back(t);
  LaunchPlan plan;
  if (kept.empty()) return plan;
  // Exotic filter: GPU, accelerator and metal types only when nothing ordinary remains.
  if (!min_values &&
      std::any_of(kept.begin(), kept.end(), [&](std::uint32_t t) { return !is_exotic(types[t]); }))
    std::erase_if(kept, [&](std::uint32_t t) { return is_exotic(types[t]); });
  // Spot filter: drop types whose usable spot offerings all cost more than the cheapest usable
  // on-demand offering of any remaining type (types with a reserved offering stay). Karpenter
  // fails the launch if this leaves nothing; fleetsim keeps every type instead.
  if (!min_values && (allowed & spot) && (allowed & on_demand)) {
    double ceiling = std::numeric_limits<double>::infinity();
    bool any_spot = false;
    for (std::uint32_t t : kept)
      for (const OfferingRef& o : context.offerings(t)) {
        if (usable(o, on_demand)) ceiling = std::min(ceiling, o.price);
        any_spot |= usable(o, spot);
      }
    if (any_spot && ceiling != std::numeric_limits<double>::infinity()) {
      std::vector<std::uint32_t> cheaper;
      for (std::uint32_t t : kept) {
        bool has_spot = false, cheap = false;
        for (const OfferingRef& o : context.offerings(t))
          if (usable(o, spot)) {
            has_spot = true;
            cheap |= o.price <= ceiling;
          }
        if (!has_spot || cheap || ((allowed & reserved) && offers(t, reserved)))
          cheaper.push_back(t);
      }
      if (!cheaper.empty()) kept = std::move(cheaper);
    }
  }
  // Capacity type reserved > spot > on-demand, the first with a usable offering left.
  plan.capacity_type = CapacityType::OnDemand;
  for (CapacityType ct : {CapacityType::Reserved, CapacityType::Spot}) {
    const std::uint8_t bit = capacity_bit(ct);
    if ((allowed & bit) &&
        std::any_of(kept.begin(), kept.end(), [&](std::uint32_t t) { return offers(t, bit); })) {
      plan.capacity_type = ct;
      break;
    }
  }
  const std::uint8_t chosen = capacity_bit(plan.capacity_type);

  // Types in the claim's (price) order, truncated as the fleet request is.
  if (kept.size() > kMaxFleetInstanceTypes) kept.resize(kMaxFleetInstanceTypes);
  for (std::uint32_t t : kept) {
    auto offerings = context.offerings(t);
    for (std::size_t i = 0; i < offerings.size(); ++i)
      if (usable(offerings[i], chosen))
        plan.candidates.push_back(
            LaunchCandidate{.type = t,
                            .offering = static_cast<std::uint32_t>(i),
                            .price = offerings[i].price,
                            .allocatable = context.pools()[claim.pool].allocatable[t],
                            .daemon_overhead = context.daemon_overhead(claim.pool, t)});
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
