#include "fleetsim/scheduling/node_overlay_store.hpp"

#include <algorithm>
#include <numeric>

namespace fleetsim {

namespace {

constexpr std::uint32_t kNobody = UINT32_MAX;

// Karpenter's Requirements.Compatible without AllowUndefined: a key the overlay asks for
// positively must be defined on the instance type (or its pool), and shared keys must intersect.
bool compatible(const Requirements& have, const Requirements& overlay) {
  for (const auto& [key, req] : overlay.entries()) {
    const Operator op = req.effective_operator();
    if (!have.has(key) && op != Operator::NotIn && op != Operator::DoesNotExist) return false;
  }
  return !have.first_conflict(overlay);
}

// Offerings.Compatible: the offering's zone and capacity type meet the overlay's (well-known
// labels the overlay leaves undefined allow any).
bool offering_compatible(const Offering& o, const Requirements& overlay) {
  const Requirement* zone = overlay.get(label::kZone);
  const Requirement* capacity = overlay.get(label::kCapacityType);
  return (zone == nullptr || zone->allows(o.zone)) &&
         (capacity == nullptr || capacity->allows(to_string(o.capacity_type)));
}

// instanceTypeUpdate.Capacity (store.go capacityUpdate).
struct CapacityUpdate {
  std::vector<std::pair<ResourceIndex, std::int64_t>> merged;  // OverlayUpdate
  std::vector<std::pair<ResourceIndex, std::int64_t>> lowest;  // lowestWeightCapacityResources
  std::int32_t lowest_weight = 0;
  std::uint32_t lowest_by = kNobody;
};

// instanceTypeUpdate.Price[offering] (store.go priceUpdate).
struct PriceUpdate {
  bool set = false;
  OverlayPrice change;
  std::int32_t lowest_weight = 0;
  std::uint32_t lowest_by = kNobody;
};

struct PoolState {
  std::vector<CapacityUpdate> capacity;  // by type
  std::vector<PriceUpdate> price;        // by global offering
};

bool has_resource(const std::vector<std::pair<ResourceIndex, std::int64_t>>& list,
                  ResourceIndex r) {
  return std::any_of(list.begin(), list.end(), [&](const auto& e) { return e.first == r; });
}

}  // namespace

OverlayResolution resolve_node_overlays(const Catalog& catalog, std::span<const NodePool> pools,
                                        std::span<const NodeOverlay> overlays) {
  OverlayResolution out;
  out.pools.resize(pools.size());
  out.matched.assign(overlays.size(), 0);
  if (overlays.empty()) return out;
  const auto& types = catalog.types();

  // OrderByWeight: weight descending, then name descending.
  std::vector<std::uint32_t> order(overlays.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (overlays[a].weight != overlays[b].weight) return overlays[a].weight > overlays[b].weight;
    return overlays[a].name > overlays[b].name;
  });

  // Each pool's instance types' labels as getOverlaidOfferings builds them.
  std::vector<std::vector<Requirements>> labels(pools.size());
  std::vector<PoolState> state(pools.size());
  for (std::size_t p = 0; p < pools.size(); ++p) {
    if (pools[p].node_group) continue;
    Requirements base;
    base.add(std::string(label::kNodePool), Requirement::single(pools[p].name));
    for (const auto& [k, v] : pools[p].labels) base.add(k, Requirement::single(v));
    labels[p].reserve(types.size());
    for (const InstanceType& t : types) {
      Requirements r = base;
      r.add(t.requirements);
      labels[p].push_back(std::move(r));
    }
    state[p].capacity.resize(types.size());
    state[p].price.resize(catalog.offering_count());
  }

  // The global offerings of type t the overlay selects there (empty: it does not select t).
  auto overlaid = [&](std::size_t p, std::uint32_t t, const NodeOverlay& o) {
    std::vector<std::uint32_t> offerings;
    if (!compatible(labels[p][t], o.requirements)) return offerings;
    for (std::size_t i = 0; i < types[t].offerings.size(); ++i)
      if (offering_compatible(types[t].offerings[i], o.requirements))
        offerings.push_back(catalog.offering_index(t, i));
    return offerings;
  };

  for (std::uint32_t k : order) {
    const NodeOverlay& o = overlays[k];
    // Validate every pool first, so that a conflicting overlay applies nowhere.
    bool conflict = false;
    for (std::size_t p = 0; p < pools.size() && !conflict; ++p) {
      if (pools[p].node_group) continue;
      for (std::uint32_t t = 0; t < types.size() && !conflict; ++t) {
        const std::vector<std::uint32_t> offerings = overlaid(p, t, o);
        if (offerings.empty()) continue;
        std::uint32_t with = kNobody;
        // isOfferingUpdateConflicting: an offering whose price was last set at this weight.
        if (!o.price.is_none())
          for (std::uint32_t g : offerings) {
            const PriceUpdate& u = state[p].price[g];
            if (u.set && u.lowest_weight == o.weight) {
              with = u.lowest_by;
              break;
            }
          }
        // isCapacityUpdateConflicting: a resource the lowest-weight overlay set, at this weight.
        const CapacityUpdate& c = state[p].capacity[t];
        if (with == kNobody && o.has_capacity && c.lowest_by != kNobody &&
            c.lowest_weight == o.weight)
          for (const auto& [r, q] : o.capacity)
            if (has_resource(c.lowest, r)) with = c.lowest_by;
        if (with != kNobody) {
          out.conflicts.push_back({.overlay = k,
                                   .with = with,
                                   .nodepool = pools[p].name,
                                   .instance_type = types[t].name});
          conflict = true;
        }
      }
    }
    if (conflict) continue;
    for (std::size_t p = 0; p < pools.size(); ++p) {
      if (pools[p].node_group) continue;
      for (std::uint32_t t = 0; t < types.size(); ++t) {
        const std::vector<std::uint32_t> offerings = overlaid(p, t, o);
        if (offerings.empty()) continue;
        out.matched[k] = 1;
        // updateInstanceTypeOffering: the first (heaviest) price stays; the weight follows.
        if (!o.price.is_none())
          for (std::uint32_t g : offerings) {
            PriceUpdate& u = state[p].price[g];
            if (!u.set) u.change = o.price;
            u.set = true;
            u.lowest_weight = o.weight;
            u.lowest_by = k;
          }
        // updateInstanceTypeCapacity: add the resources no heavier overlay set.
        if (o.has_capacity) {
          CapacityUpdate& c = state[p].capacity[t];
          for (const auto& [r, q] : o.capacity)
            if (!has_resource(c.merged, r)) c.merged.emplace_back(r, q);
          c.lowest = o.capacity;
          c.lowest_weight = o.weight;
          c.lowest_by = k;
        }
      }
    }
  }

  for (std::size_t p = 0; p < pools.size(); ++p) {
    if (pools[p].node_group) continue;
    PoolOverlay& po = out.pools[p];
    const PoolState& s = state[p];
    if (std::any_of(s.price.begin(), s.price.end(), [](const PriceUpdate& u) { return u.set; })) {
      po.price_by_offering.resize(s.price.size());
      for (std::size_t g = 0; g < s.price.size(); ++g)
        if (s.price[g].set) po.price_by_offering[g] = s.price[g].change;
    }
    if (std::any_of(s.capacity.begin(), s.capacity.end(),
                    [](const CapacityUpdate& c) { return !c.merged.empty(); })) {
      po.capacity_by_type.resize(types.size());
      for (std::size_t t = 0; t < types.size(); ++t) po.capacity_by_type[t] = s.capacity[t].merged;
    }
  }
  return out;
}

}  // namespace fleetsim
