// The cluster as the solver sees it at one instant: the input of Scheduler::solve.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/provisioning/capacity_buffers.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

// Pending pods, the live nodes with their room, the pods bound to them (for topology spread) and
// each pool's usage against its limits. Indices in a SolveResult map back to cluster ids through
// `pending` and `node_ids`. Provisioning takes one per batch; consolidation takes one and
// removes its candidates before solving.
// Upstream's DRAError message for such a pod.
inline constexpr std::string_view kDraIgnoredReason =
    "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter";

struct ClusterSnapshot {
  std::vector<PodId> pending;  // SolveInput::pods index → pod (kVirtualPod: a buffer's)
  std::vector<PendingPod> pods;
  std::vector<NodeId> node_ids;  // SolveInput::nodes index → node
  std::vector<ExistingNode> nodes;
  std::vector<BoundPod> bound;
  std::vector<Resources> pool_usage;  // per context pool, by capacity
  std::vector<std::int64_t> pool_nodes;
  // Pending pods with ResourceClaims, which Karpenter leaves out under --ignore-dra-requests.
  std::vector<PodId> dra_ignored;

  SolveInput input(std::span<const std::uint8_t> offering_usable,
                   std::span<const double> offering_prices = {},
                   std::span<const std::int64_t> reservation_remaining = {}) const {
    return SolveInput{.nodes = nodes,
                      .pods = pods,
                      .bound_pods = bound,
                      .pool_usage = pool_usage,
                      .pool_node_count = pool_nodes,
                      .offering_usable = offering_usable,
                      .offering_prices = offering_prices,
                      .reservation_remaining = reservation_remaining};
  }
};

// Limits count every NodeClaim of a pool until it is gone (deleting ones too), by capacity;
// only live nodes can take pods. `virtual_pods` (CapacityBuffers') follow the pending pods, as
// GetPendingPods appends them after its filters.
ClusterSnapshot take_snapshot(const Cluster& cluster, const SchedulingContext& context,
                              std::span<const PendingPod> virtual_pods = {});

}  // namespace fleetsim
