#include "fleetsim/provisioning/launch_choice.hpp"

#include <algorithm>
#include <limits>

namespace fleetsim {

namespace {

bool is_exotic(const InstanceType& t) { return t.has_gpu() || t.size.find("metal") != std::string::npos; }

bool has_min_values(const Requirements& r) {
  for (const auto& [k, req] : r.entries())
    if (req.min_values()) return true;
  return false;
}

}  // namespace

LaunchPlan plan_launch(const SchedulingContext& context, const NewNodeClaim& claim,
                       std::span<const std::uint8_t> offering_usable) {
  const auto& types = context.catalog().types();
  const std::uint64_t zones = context.zone_mask(claim.requirements);
  const std::uint8_t allowed = SchedulingContext::capacity_mask(claim.requirements);
  auto usable = [&](const OfferingRef& o, std::uint8_t capacity) {
    return (zones >> o.zone & 1ULL) && (o.capacity & capacity) &&
           (offering_usable.empty() || offering_usable[o.global] != 0);
  };
  auto any_offering = [&](std::uint8_t capacity) {
    for (std::uint32_t t : claim.types)
      for (const OfferingRef& o : context.offerings(t))
        if (usable(o, capacity)) return true;
    return false;
  };

  LaunchPlan plan;
  bool found = false;
  for (CapacityType ct : {CapacityType::Reserved, CapacityType::Spot, CapacityType::OnDemand}) {
    if ((allowed & capacity_bit(ct)) && any_offering(capacity_bit(ct))) {
      plan.capacity_type = ct;
      found = true;
      break;
    }
  }
  if (!found) return plan;
  const std::uint8_t chosen = capacity_bit(plan.capacity_type);
  const bool min_values = has_min_values(claim.requirements);

  std::vector<std::uint32_t> kept;
  for (std::uint32_t t : claim.types) {
    bool offered = false;
    for (const OfferingRef& o : context.offerings(t)) offered |= usable(o, chosen);
    if (offered) kept.push_back(t);
  }
  // Exotic filter: GPU, accelerator and metal types only when nothing ordinary remains.
  if (!min_values && std::any_of(kept.begin(), kept.end(), [&](std::uint32_t t) { return !is_exotic(types[t]); }))
    std::erase_if(kept, [&](std::uint32_t t) { return is_exotic(types[t]); });

  double spot_ceiling = std::numeric_limits<double>::infinity();
  if (plan.capacity_type == CapacityType::Spot && (allowed & capacity_bit(CapacityType::OnDemand)) && !min_values) {
    for (std::uint32_t t : kept)
      for (const OfferingRef& o : context.offerings(t))
        if (usable(o, capacity_bit(CapacityType::OnDemand))) spot_ceiling = std::min(spot_ceiling, o.price);
  }

  // Types in the claim's (price) order, truncated as the fleet request is.
  if (kept.size() > kMaxFleetInstanceTypes) kept.resize(kMaxFleetInstanceTypes);
  auto collect = [&](double ceiling) {
    for (std::uint32_t t : kept) {
      auto offerings = context.offerings(t);
      for (std::size_t i = 0; i < offerings.size(); ++i) {
        const OfferingRef& o = offerings[i];
        if (!usable(o, chosen) || o.price > ceiling) continue;
        plan.candidates.push_back(LaunchCandidate{.type = t, .offering = static_cast<std::uint32_t>(i), .price = o.price});
      }
    }
  };
  collect(spot_ceiling);
  // The spot filter never empties the request: without a cheaper spot offering, all stay.
  if (plan.candidates.empty()) collect(std::numeric_limits<double>::infinity());
  std::stable_sort(plan.candidates.begin(), plan.candidates.end(), [&](const LaunchCandidate& a, const LaunchCandidate& b) {
    if (a.price != b.price) return a.price < b.price;
    if (a.type != b.type) return types[a.type].name < types[b.type].name;
    return a.offering < b.offering;
  });
  return plan;
}

}  // namespace fleetsim
