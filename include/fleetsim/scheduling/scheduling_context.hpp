// What the bin-packer precomputes once per (catalog, NodePools, DaemonSets) and reuses per solve.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/pod_fits.hpp"
#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/scheduling/node_overlay_store.hpp"
#include "fleetsim/scheduling/type_set.hpp"

namespace fleetsim {

inline constexpr std::uint8_t kAllCapacityTypes = 0b111;

// An offering reduced to what the solver's inner loop compares.
struct OfferingRef {
  std::uint32_t global = 0;   // index into SolveInput::offering_usable
  std::uint8_t zone = 0;      // zone index
  std::uint8_t capacity = 0;  // capacity_bit
  double price = 0.0;
};

// A NodePool as the solver sees it.
struct PoolTemplate {
  const NodePool* pool = nullptr;
  Requirements requirements;  // spec requirements ∩ template labels ∩ karpenter.sh/nodepool
  TypeSet types;              // catalog types compatible with the requirements
  std::vector<Resources>
      daemon_overhead;                 // per catalog type: requests of DaemonSets that land there
  std::vector<Resources> allocatable;  // per catalog type, with the pool's kubelet settings
  // Per catalog type: capacity as limits count it, EC2's with the NodeOverlays' resources.
  std::vector<Resources> capacity;
  // Per catalog type: allocatable − DaemonSet overhead, what the pods of one node may request.
  std::vector<Resources> room;
  bool uniform_overhead = true;  // every type carries the same DaemonSet overhead
  std::uint64_t zone_mask = 0;
  std::uint8_t capacity_mask = 0;
  bool has_prefer_no_schedule = false;
  // Per global offering: 0 for a reservation the pool's EC2NodeClass does not select
  // (capacityReservationSelectorTerms); empty = every offering.
  std::vector<std::uint8_t> offering_allowed;
  // By global offering: a NodeOverlay's price change for this pool; empty: none.
  std::vector<OverlayPrice> price_by_offering;
};

class SchedulingContext {
 public:
  struct DaemonSet {
    const PodSpec* spec = nullptr;
  };

  // `allocatable` holds, per pool, each catalog type's allocatable as the cloud provider sizes
  // the pool's NodeClass (maxPods changes it); empty means the catalog's for every pool.
  // `offering_allowed`, per pool, PoolTemplate::offering_allowed (empty: every offering).
  // `overlays` (per pool; empty: none) sets extended resources' capacity and prices.
  SchedulingContext(const Catalog& catalog, std::span<const NodePool> pools,
                    std::span<const DaemonSet> daemonsets,
                    std::span<const std::vector<Resources>> allocatable = {},
                    std::span<const std::vector<std::uint8_t>> offering_allowed = {},
                    std::span<const PoolOverlay> overlays = {});

  const Catalog& catalog() const { return *catalog_; }
  const std::vector<PoolTemplate>& pools() const { return pools_; }
  // Pool indices by weight descending, then name descending (Karpenter's OrderByWeight).
  const std::vector<std::uint32_t>& pool_order() const { return pool_order_; }
  const std::vector<std::string>& zones() const { return zones_; }
  std::span<const OfferingRef> offerings(std::uint32_t type) const {
    const std::uint32_t begin = catalog_->offering_index(type, 0);
    return {offerings_.data() + begin, catalog_->offering_index(type + 1, 0) - begin};
  }
  std::size_t offering_count() const { return offerings_.size(); }
  // The global index of the i-th offering of a type (Catalog::offering_index).
  std::uint32_t offering_index(std::uint32_t type, std::size_t i) const {
    return catalog_->offering_index(type, i);
  }
  std::optional<std::uint8_t> zone_index(std::string_view zone) const;
  // What a pool's NodeClaim on global offering `g` costs an hour when the offering costs `base`:
  // `base` with the pool's NodeOverlay price change.
  double pool_price(std::uint32_t pool, std::uint32_t g, double base) const {
    const std::vector<OverlayPrice>& changes = pools_[pool].price_by_offering;
    return changes.empty() ? base : adjusted_price(base, changes[g]);
  }

  // Zones (as a bit mask) and capacity types that a requirement set allows.
  std::uint64_t zone_mask(const Requirements& r) const;
  static std::uint8_t capacity_mask(const Requirements& r);
  // Types whose labels intersect r.
  TypeSet compatible_types(const Requirements& r) const;
  // The pool's instance types a new node for the pod could have, once Karpenter has relaxed what
  // it relaxes (PreferNoSchedule taints, ORed terms): for validation, not for the solve.
  TypeSet types_for(const PodSpec& pod, std::uint32_t pool) const;
  // The Resources the DaemonSets add to a node of `type` from `pool`.
  Resources daemon_overhead(std::uint32_t pool, std::uint32_t type) const {
    return pools_[pool].daemon_overhead[type];
  }

 private:
  const Catalog* catalog_;
  std::vector<PoolTemplate> pools_;
  std::vector<std::uint32_t> pool_order_;
  std::vector<std::string> zones_;
  std::vector<OfferingRef> offerings_;
};

}  // namespace fleetsim
