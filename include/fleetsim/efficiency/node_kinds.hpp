// The node kinds (instance type × capacity type) a run's pods may use, as its NodePools or node
// groups allow them, with the room and cheapest price of each.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/scenario/pool_sets.hpp"
#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

inline constexpr std::uint32_t kCapacityTypeCount = 3;  // CapacityType's values

// Node kind j is catalog type j / 3 bought as CapacityType(j % 3). Zones are merged: a kind
// costs its cheapest zone's price, which can only lower a bound.
inline std::uint32_t node_kind(std::uint32_t type, CapacityType ct) {
  return type * kCapacityTypeCount + static_cast<std::uint32_t>(ct);
}
inline std::uint32_t kind_type(std::uint32_t kind) { return kind / kCapacityTypeCount; }
inline CapacityType kind_capacity(std::uint32_t kind) {
  return static_cast<CapacityType>(kind % kCapacityTypeCount);
}

class NodeKinds {
 public:
  explicit NodeKinds(const ScenarioConfig& config);

  // The kinds some pool of some pool set of the run could launch for a pod of `spec`, sorted:
  // a type the pool allows, whose labels the pod's node selection allows, whose taints it
  // tolerates and whose room its requests fit (SchedulingContext::types_for), in a zone and
  // capacity type both the pool's requirements (a node group's: its instances distribution)
  // and one of the pod's terms allow. Every test
  // here is one the run's own provisioner applies, so a pod never lands outside this set;
  // where it would (a node the pools do not describe), the recorder adds the node's kind.
  std::vector<std::uint32_t> kinds_for(const PodSpec& spec) const;

  // What pods may request of one node of a type: the largest allocatable less DaemonSet
  // overhead among the pools (an upper bound on every node of the type the run could have).
  const Resources& room(std::uint32_t type) const { return room_[type]; }
  // A node of the type was seen with this much room: the bound takes the larger. True when
  // that changed the room.
  bool widen_room(std::uint32_t type, const Resources& room);

  // The least a node of global offering `g` can cost when the offering costs `base`: `base`, or
  // less where a pool's NodeOverlay discounts it (a bound must hold for every pool).
  double least_price(std::uint32_t g, double base) const;

  const Catalog& catalog() const { return catalog_; }
  std::size_t kind_count() const { return catalog_.types().size() * kCapacityTypeCount; }

 private:
  const Catalog& catalog_;
  std::vector<PoolSet> sets_;
  std::vector<Resources> room_;  // by catalog type
  // A node group's capacity types, by name (its pool's requirements do not say them).
  std::map<std::string, std::uint8_t, std::less<>> group_capacities_;
};

}  // namespace fleetsim
