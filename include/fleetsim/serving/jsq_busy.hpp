// How many replicas the fewest-in-flight router keeps busy: the fluid mode's DCGM utilization.
//
// With N requests in flight (Poisson, M/G/∞) over R replicas, min(N, R) would be busy if the
// requests were always spread one per replica; the router places a request only when it arrives,
// so a replica can idle while another holds two, and the busy count runs 3-5 % below E[min(N, R)]
// at 0.6-1.3 requests per replica. The share comes from a Markov chain on (N, busy replicas),
// solved offline by tools/fluid/jsq_busy.py (jsq_busy_table.cpp), which is within 0.5 % of a
// simulation of the router.
#pragma once

#include <array>

namespace fleetsim {

// The busy replicas as a share of E[min(N, R)] at `load` requests in flight per replica (the
// mean of N ÷ R), for R replicas; 1 for one replica, no load or more than 4 per replica. Beyond
// the table's largest R, its row (the share rises towards 1 as R grows).
double jsq_busy_share(double load, double replicas);

namespace jsq_table {
inline constexpr int kReplicaRows = 18;
inline constexpr int kLoadColumns = 41;  // 0 to 4 requests per replica, in steps of 0.1
inline constexpr double kLoadStep = 0.1;
extern const std::array<int, kReplicaRows> kReplicas;
extern const std::array<std::array<double, kLoadColumns>, kReplicaRows> kBusyShare;
}  // namespace jsq_table

}  // namespace fleetsim
