#include "fleetsim/efficiency/node_kinds.hpp"

#include <algorithm>
#include <optional>

namespace fleetsim {

namespace {

// The capacity types a node group's instances distribution launches: on-demand only at 100%
// above the base (a managed group's default), spot only at 0% with no base, else both.
std::uint8_t group_capacities(const NodeGroup& g) {
  if (g.on_demand_percentage_above_base >= 100) return capacity_bit(CapacityType::OnDemand);
  if (g.on_demand_base == 0 && g.on_demand_percentage_above_base == 0)
    return capacity_bit(CapacityType::Spot);
  return capacity_bit(CapacityType::OnDemand) | capacity_bit(CapacityType::Spot);
}

}  // namespace

NodeKinds::NodeKinds(const ScenarioConfig& config)
    : catalog_(*config.catalog), sets_(pool_sets(config)), room_(catalog_.types().size()) {
  for (const NodeGroup& g : config.node_groups) group_capacities_[g.name] = group_capacities(g);
  for (const PoolSet& set : sets_)
    for (const PoolTemplate& tpl : set.context->pools())
      tpl.types.for_each([&](std::size_t t) { room_[t] = Resources::max(room_[t], tpl.room[t]); });
}

double NodeKinds::least_price(std::uint32_t g, double base) const {
  double least = base;
  for (const PoolSet& set : sets_)
    for (std::uint32_t p = 0; p < set.context->pools().size(); ++p)
      if (!set.context->pools()[p].price_by_offering.empty())
        least = std::min(least, set.context->pool_price(p, g, base));
  return least;
}

bool NodeKinds::widen_room(std::uint32_t type, const Resources& room) {
  const Resources wider = Resources::max(room_[type], room);
  if (wider == room_[type]) return false;
  room_[type] = wider;
  return true;
}

std::vector<std::uint32_t> NodeKinds::kinds_for(const PodSpec& spec) const {
  std::vector<const Requirements*> terms{&spec.node_requirements};
  for (const Requirements& alternative : spec.alternative_node_requirements)
    terms.push_back(&alternative);
  std::vector<std::uint32_t> out;
  for (const PoolSet& set : sets_) {
    const SchedulingContext& ctx = *set.context;
    // Zones and capacity types one of the pod's terms allows (their union: a superset), and
    // the types each term's labels allow, once for all the set's pools.
    std::uint64_t zones = 0;
    std::uint8_t capacities = 0;
    std::vector<std::optional<TypeSet>> term_types(terms.size());
    for (std::size_t i = 0; i < terms.size(); ++i) {
      zones |= ctx.zone_mask(*terms[i]);
      capacities |= SchedulingContext::capacity_mask(*terms[i]);
      if (!terms[i]->empty()) term_types[i] = ctx.compatible_types(*terms[i]);
    }
    for (std::uint32_t p = 0; p < ctx.pools().size(); ++p) {
      const PoolTemplate& tpl = ctx.pools()[p];
      std::uint8_t pool_capacities = capacities & tpl.capacity_mask;
      if (tpl.pool->node_group) {
        auto group = group_capacities_.find(tpl.pool->name);
        if (group != group_capacities_.end()) pool_capacities &= group->second;
      }
      const std::uint64_t pool_zones = zones & tpl.zone_mask;
      if (pool_capacities == 0 || pool_zones == 0) continue;
      // SchedulingContext::types_for, with each term's types computed once above.
      if (blocking_taint(spec, tpl.pool->taints, PreferNoSchedule::Ignore) != nullptr) continue;
      TypeSet types(catalog_.types().size());
      for (std::size_t i = 0; i < terms.size(); ++i) {
        if (!term_allows(*terms[i], tpl.requirements)) continue;
        TypeSet candidates = tpl.types;
        if (term_types[i]) candidates &= *term_types[i];
        candidates.for_each([&](std::size_t t) {
          if (spec.requests.fits_in(tpl.room[t])) types.set(t);
        });
      }
      types.for_each([&](std::size_t t) {
        for (const OfferingRef& o : ctx.offerings(static_cast<std::uint32_t>(t))) {
          if ((pool_zones >> o.zone & 1U) == 0 || (pool_capacities & o.capacity) == 0) continue;
          out.push_back(
              node_kind(static_cast<std::uint32_t>(t), catalog_.offering(o.global).capacity_type));
        }
      });
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fleetsim
