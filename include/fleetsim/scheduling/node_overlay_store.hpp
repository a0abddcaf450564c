// What NodeOverlays do to each NodePool's instance types: Karpenter's nodeoverlay controller and
// its InstanceTypeStore (pkg/controllers/nodeoverlay), computed once per set of NodePools.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// One NodePool's overlaid instance types.
struct PoolOverlay {
  // By global offering: the price change that applies (None where none does); empty: none.
  std::vector<OverlayPrice> price_by_offering;
  // By catalog type: the extended resources whose capacity an overlay sets; empty: none.
  std::vector<std::vector<std::pair<ResourceIndex, std::int64_t>>> capacity_by_type;
};

// An overlay the controller refused (status ValidationSucceeded False, reason Conflict): one of
// equal weight, ordered before it, already set a price of one of the same offerings, or a
// capacity of one of the same resources, on an instance type both select in some NodePool.
struct OverlayConflict {
  std::uint32_t overlay = 0;  // index into the overlays given
  std::uint32_t with = 0;     // the overlay it conflicts with
  std::string nodepool;
  std::string instance_type;
};

struct OverlayResolution {
  std::vector<PoolOverlay> pools;  // by pool index; a node group's stays empty
  std::vector<OverlayConflict> conflicts;
  // Per overlay: it selected at least one instance type of some NodePool.
  std::vector<std::uint8_t> matched;
};

// Karpenter's Reconcile: the overlays by weight (descending; ties: name descending), each
// applied to every NodePool's instance types whose labels (with the pool's template labels and
// karpenter.sh/nodepool) are compatible with its requirements, price per compatible offering,
// unless it conflicts anywhere, when none of it applies. A higher weight's value wins; a lower
// weight only adds resources the higher ones did not set.
OverlayResolution resolve_node_overlays(const Catalog& catalog, std::span<const NodePool> pools,
                                        std::span<const NodeOverlay> overlays);

}  // namespace fleetsim
