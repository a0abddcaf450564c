// Karpenter's provisioning bin-packer as a pure function: pods in, placements and NodeClaims out.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fleetsim/scheduling/scheduling_context.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

struct SchedulerOptions {
  // Karpenter's MaxInstanceTypes: a NodeClaim carries at most this many options.
  std::size_t max_instance_types = 600;
  // MIN_VALUES_POLICY: Strict rejects a pod that would break minValues; BestEffort relaxes it.
  bool min_values_best_effort = false;
  // Karpenter's DisableReservedCapacityFallback (ReservedOfferingModeStrict), which provisioning
  // sets: a pod that could use a reservation the solve's claims have all taken waits for the next
  // solve instead of falling back to on-demand, spot or a lower-weight NodePool. Consolidation's
  // simulations keep the fallback.
  bool strict_reserved_offerings = false;
};

// Existing nodes in the order the solver tries them: initialized first, then by name. A caller
// that solves the same nodes many times computes it once (SolveInput::node_order).
std::vector<std::uint32_t> solver_node_order(std::span<const ExistingNode> nodes);
// Each node's zone as the context indexes it (-1: a zone it does not know), for a caller that
// solves the same nodes many times (SolveInput::node_zones).
std::vector<std::int8_t> solver_node_zones(const SchedulingContext& context,
                                           std::span<const ExistingNode> nodes);

// One Scheduler per simulation; solve() reuses its scratch buffers, so it is not reentrant.
// No I/O, no clock, no logging: consolidation can call it on a copy of the cluster view.
class Scheduler {
 public:
  explicit Scheduler(const SchedulingContext& context, SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  SolveResult solve(const SolveInput& input);

 private:
  struct State;
  const SchedulingContext* context_;
  SchedulerOptions options_;
  std::unique_ptr<State> state_;  // the scratch buffers, kept from one solve to the next
};

}  // namespace fleetsim
