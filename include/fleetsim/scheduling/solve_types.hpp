// The inputs and outputs of one Scheduler::solve: a view of the cluster in, placements out.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

inline constexpr std::uint32_t kNoPool = UINT32_MAX;

// A node that exists or is being launched (an in-flight NodeClaim).
struct ExistingNode {
  std::string_view name;
  bool initialized = false;
  std::uint32_t pool = kNoPool;  // index into the context's pools; kNoPool if not Karpenter's
  std::uint32_t type = 0;        // catalog index
  std::string_view zone;
  CapacityType capacity_type = CapacityType::OnDemand;
  const Requirements* labels = nullptr;  // the node's labels, as single-valued requirements
  std::span<const Taint> taints;         // startup taints excluded: Karpenter ignores them
  Resources available;  // allocatable − requests of its pods − DaemonSet overhead still missing
  // Inside its pool's consolidateAfter: a consolidation simulation moves no candidate's pod here
  // (Karpenter v1.14, scheduler.go IsConsolidationSimulation).
  bool under_consolidate_after = false;
};

// A pod waiting to be placed.
struct PendingPod {
  const PodSpec* spec = nullptr;
  const Labels* labels = nullptr;  // for topology spread selectors
  std::string_view namespace_name;
  std::int64_t created_us = 0;  // creation time, the third sort key
  std::string_view uid;         // the last sort key
  // A pod of a consolidation candidate (not pending, not on a deleting node).
  bool from_candidate = false;
};

// A pod already bound to an existing node, counted by topology spread and pod affinity.
struct BoundPod {
  const Labels* labels = nullptr;
  const PodSpec* spec = nullptr;  // for its required anti-affinity; nullptr: none
  std::string_view namespace_name;
  std::uint32_t node = 0;  // index into SolveInput::nodes
};

// Bound pods matter to a solve only through topology spread and pod affinity: a pending pod's
// own rules, or a bound pod's required anti-affinity. Without any, a caller may pass none and
// spare the solve its walk over them.
inline bool reads_bound_pods(const PendingPod& p) {
  return !p.spec->topology_spread.empty() || !p.spec->pod_affinity.empty() ||
         !p.spec->pod_anti_affinity.empty();
}
inline bool repels_pending_pods(const BoundPod& b) {
  return b.spec != nullptr && !b.spec->pod_anti_affinity.required.empty();
}

struct SolveInput {
  bool removed(std::uint32_t node) const {
    return !node_removed.empty() && node_removed[node] != 0;
  }

  std::span<const ExistingNode> nodes;  // any order; solve orders them itself
  std::span<const PendingPod> pods;
  std::span<const BoundPod> bound_pods;
  // Per pool: capacity already counted against its limits (existing and in-flight nodes).
  std::span<const Resources> pool_usage;
  std::span<const std::int64_t> pool_node_count;
  // solver_node_order(nodes), when the caller has it; empty: the solver computes it.
  std::span<const std::uint32_t> node_order;
  // solver_node_zones(context, nodes), when the caller has it; empty: the solver looks them up.
  std::span<const std::int8_t> node_zones;
  // Per node: 1 when a consolidation simulation removes it: it takes no pod and its bound pods
  // do not count. Empty = none removed.
  std::span<const std::uint8_t> node_removed;
  // Per catalog offering (SchedulingContext::offering_index): 0 when not launchable now
  // (insufficient capacity cache, capacity exhausted). Empty = all launchable.
  std::span<const std::uint8_t> offering_usable;
  // Per catalog offering: its hourly price now (a spot price trace moves it). Empty = the
  // catalog's prices.
  std::span<const double> offering_prices;
  // Per reservation (Catalog::reservations()): the instances it can still launch. The claims of
  // a solve hold them as Karpenter's ReservationManager does. Empty = not tracked.
  std::span<const std::int64_t> reservation_remaining;
};

struct Placement {
  std::uint32_t pod = 0;   // index into SolveInput::pods
  std::uint32_t node = 0;  // index into SolveInput::nodes
};

// A NodeClaim to create: its pods and the instance types that can still host them.
struct NewNodeClaim {
  std::uint32_t pool = 0;
  std::vector<std::uint32_t> pods;   // indices into SolveInput::pods
  std::vector<std::uint32_t> types;  // catalog indices, cheapest compatible offering first
  Requirements requirements;         // pool requirements narrowed by its pods
  Resources requests;                // pods plus the smallest DaemonSet overhead of the types
};

struct PodFailure {
  std::uint32_t pod = 0;
  std::string reason;
};

struct SolveResult {
  std::vector<Placement> placements;
  std::vector<NewNodeClaim> claims;
  std::vector<PodFailure> failures;
};

}  // namespace fleetsim
