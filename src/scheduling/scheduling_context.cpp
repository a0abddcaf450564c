#include "fleetsim/scheduling/scheduling_context.hpp"

#include <algorithm>

namespace fleetsim {

SchedulingContext::SchedulingContext(const Catalog& catalog, std::span<const NodePool> pools,
                                     std::span<const DaemonSet> daemonsets,
                                     std::span<const std::vector<Resources>> allocatable,
                                     std::span<const std::vector<std::uint8_t>> offering_allowed,
                                     std::span<const PoolOverlay> overlays)
    : catalog_(&catalog) {
  zones_ = catalog.zones();
  FLEETSIM_ASSERT(zones_.size() <= kMaxZones);  // the catalog loader refuses more
  const auto& types = catalog.types();
  for (const InstanceType& t : types) {
    for (const Offering& o : t.offerings) {
      offerings_.push_back(OfferingRef{.global = static_cast<std::uint32_t>(offerings_.size()),
                                       .zone = *zone_index(o.zone),
                                       .capacity = capacity_bit(o.capacity_type),
                                       .price = o.price_per_hour});
    }
  }

  for (std::size_t p = 0; p < pools.size(); ++p) {
    const NodePool& pool = pools[p];
    PoolTemplate tpl;
    if (p < allocatable.size()) {
      FLEETSIM_ASSERT(allocatable[p].size() == types.size());
      tpl.allocatable = allocatable[p];
    } else {
      tpl.allocatable.reserve(types.size());
      for (const InstanceType& t : types) tpl.allocatable.push_back(t.allocatable);
    }
    tpl.capacity.reserve(types.size());
    for (const InstanceType& t : types) tpl.capacity.push_back(t.capacity);
    if (p < overlays.size()) {
      // An overlaid extended resource has no overhead: its capacity is its allocatable.
      const PoolOverlay& overlay = overlays[p];
      for (std::size_t t = 0; t < overlay.capacity_by_type.size(); ++t)
        for (const auto& [r, q] : overlay.capacity_by_type[t])
          tpl.allocatable[t][r] = tpl.capacity[t][r] = q;
      tpl.price_by_offering = overlay.price_by_offering;
    }
    tpl.pool = &pool;
    if (p < offering_allowed.size()) tpl.offering_allowed = offering_allowed[p];
    tpl.requirements = pool.requirements;
    for (const auto& [k, v] : pool.labels) tpl.requirements.add(k, Requirement::single(v));
    tpl.requirements.add(std::string(label::kNodePool), pool.node_group
                                                            ? Requirement::does_not_exist()
                                                            : Requirement::single(pool.name));
    tpl.zone_mask = zone_mask(tpl.requirements);
    tpl.capacity_mask = capacity_mask(tpl.requirements);
    tpl.types = compatible_types(tpl.requirements);
    tpl.has_prefer_no_schedule =
        std::any_of(pool.taints.begin(), pool.taints.end(),
                    [](const Taint& t) { return t.effect == TaintEffect::PreferNoSchedule; });
    tpl.daemon_overhead.assign(types.size(), Resources{});
    for (const DaemonSet& ds : daemonsets) {
      // A DaemonSet pod lands on the node when it tolerates the pool's taints and its node
      // requirements are compatible with the pool's and the instance type's labels.
      if (blocking_taint(*ds.spec, pool.taints, PreferNoSchedule::Honour) != nullptr) continue;
      if (tpl.requirements.incompatibility(ds.spec->node_requirements)) continue;
      Resources requests = ds.spec->requests;
      tpl.types.for_each([&](std::size_t i) {
        if (!types[i].requirements.first_conflict(ds.spec->node_requirements))
          tpl.daemon_overhead[i] += requests;
      });
    }
    tpl.uniform_overhead =
        std::all_of(tpl.daemon_overhead.begin(), tpl.daemon_overhead.end(),
                    [&](const Resources& r) { return r == tpl.daemon_overhead[0]; });
    tpl.room.reserve(types.size());
    for (std::size_t i = 0; i < types.size(); ++i)
      tpl.room.push_back(tpl.allocatable[i] - tpl.daemon_overhead[i]);
    pools_.push_back(std::move(tpl));
  }

  pool_order_.resize(pools_.size());
  for (std::uint32_t i = 0; i < pool_order_.size(); ++i) pool_order_[i] = i;
  std::sort(pool_order_.begin(), pool_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const NodePool& pa = *pools_[a].pool;
    const NodePool& pb = *pools_[b].pool;
    if (pa.weight != pb.weight) return pa.weight > pb.weight;
    return pa.name > pb.name;
  });
}

std::optional<std::uint8_t> SchedulingContext::zone_index(std::string_view zone) const {
  auto it = std::lower_bound(zones_.begin(), zones_.end(), zone);
  if (it == zones_.end() || *it != zone) return std::nullopt;
  return static_cast<std::uint8_t>(it - zones_.begin());
}

std::uint64_t SchedulingContext::zone_mask(const Requirements& r) const {
  const Requirement* req = r.get(label::kZone);
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < zones_.size(); ++i)
    if (req == nullptr || req->allows(zones_[i])) mask |= 1ULL << i;
  return mask;
}

std::uint8_t SchedulingContext::capacity_mask(const Requirements& r) {
  const Requirement* req = r.get(label::kCapacityType);
  if (req == nullptr) return kAllCapacityTypes;
  std::uint8_t mask = 0;
  for (CapacityType ct : {CapacityType::OnDemand, CapacityType::Spot, CapacityType::Reserved})
    if (req->allows(to_string(ct))) mask |= capacity_bit(ct);
  return mask;
}

TypeSet SchedulingContext::types_for(const PodSpec& pod, std::uint32_t pool) const {
  const PoolTemplate& tpl = pools_[pool];
  TypeSet out(catalog_->types().size());
  if (blocking_taint(pod, tpl.pool->taints, PreferNoSchedule::Ignore) != nullptr) return out;
  std::vector<const Requirements*> terms{&pod.node_requirements};
  for (const Requirements& alternative : pod.alternative_node_requirements)
    terms.push_back(&alternative);
  for (const Requirements* term : terms) {
    if (!term_allows(*term, tpl.requirements)) continue;
    TypeSet candidates = tpl.types;
    candidates &= compatible_types(*term);
    candidates.for_each([&](std::size_t t) {
      if (pod.requests.fits_in(tpl.allocatable[t] - tpl.daemon_overhead[t])) out.set(t);
    });
  }
  return out;
}

TypeSet SchedulingContext::compatible_types(const Requirements& r) const {
  const auto& types = catalog_->types();
  TypeSet set(types.size());
  for (std::size_t i = 0; i < types.size(); ++i)
    if (!types[i].requirements.first_conflict(r)) set.set(i);
  return set;
}

}  // namespace fleetsim
