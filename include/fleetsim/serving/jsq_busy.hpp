// How many replicas the fewest-in-flight router keeps busy (the fluid mode's DCGM utilization),
// and how it keeps prompts apart (the fluid mode's TTFT and TPOT).
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

// The share of a lone replica's chance, under the same Poisson arrivals, that a request lands in
// the step of another request's prompt, and that other prompts join its own, with R Ready replicas
// behind the router: 1 ÷ √R. The router sends a request where the fewest are in flight, so not to
// the replica that took the last one (its count is one higher) until the others have caught up or
// it has lost a request. Fitted on request-level runs of 2, 4, 8 and 16 replicas of Llama-3.1-8B
// on A10Gs at 30-80 % load (chat lengths, max_num_seqs 8), where it took the fluid TTFT p50 from
// 4-13 % over the request level's to within 2 % at 30-60 % load, and its p99 from 6-15 % over to
// within 4 %; 1 ÷ R was 4-6 % under at the p50.
double jsq_prompt_overlap(double replicas);
// The same for the prompts whose steps a request's decodes share, over its whole stay: its
// replica holds one more while it is there, so the router sends it fewer, but over seconds
// rather than the length of a step: (1 + jsq_prompt_overlap) ÷ 2. On the runs above it took the
// TPOT p50 from 4-6 % over the request level's to within 2 % at 2-16 replicas, where the full
// overlap was 4-6 % under at 4-16.
double jsq_decode_overlap(double replicas);

namespace jsq_table {
inline constexpr int kReplicaRows = 18;
inline constexpr int kLoadColumns = 41;  // 0 to 4 requests per replica, in steps of 0.1
inline constexpr double kLoadStep = 0.1;
extern const std::array<int, kReplicaRows> kReplicas;
extern const std::array<std::array<double, kLoadColumns>, kReplicaRows> kBusyShare;
}  // namespace jsq_table

}  // namespace fleetsim
