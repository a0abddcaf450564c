// How many of a NodePool's nodes Karpenter may disrupt now, for a reason (budgets).
#pragma once

#include <cstdint>
#include <string_view>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// The most restrictive active budget for `reason` ("Empty", "Underutilized", "Drifted"):
// percentages are of the pool's initialized nodes, rounded up; nodes that are deleting or not
// Ready use up the allowance. A budget with a schedule is active for `duration` after each cron
// hit (UTC; `start_unix_s` is the calendar time of simulated t = 0). No active budget: no limit.
std::int64_t allowed_disruptions(const NodePool& pool, std::uint32_t pool_index,
                                 const Cluster& cluster, DisruptionReason reason, SimTime now,
                                 std::int64_t start_unix_s);

}  // namespace fleetsim
