// What one run measured, as a plain value whose sections mirror report.json (DESIGN.md §7).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/efficiency/efficiency_result.hpp"
#include "fleetsim/k8s/reasons.hpp"

namespace fleetsim {

// Figures are kept at full precision; report/ rounds them when it writes report.json.
// Maps keyed by name iterate in name order, as report.json lists them.
using UsdByName = std::map<std::string, double, std::less<>>;

// cost: instance prices (per-second billing, 60-second minimum) plus EBS (DESIGN.md §4.6).
struct CostResult {
  double total_usd = 0.0;      // instances + EBS
  double on_demand_usd = 0.0;  // instances only
  double spot_usd = 0.0;       // instances only
  double ebs_usd = 0.0;
  // Instance + EBS cost of each node, added up by its NodePool, instance type and capacity type.
  UsdByName by_nodepool;
  std::optional<UsdByName> by_nodegroup;  // Cluster Autoscaler runs: by eksctl node group
  // EKS Auto Mode runs: its management fee, part of total_usd (and of the breakdowns by node).
  std::optional<double> management_fee_usd;
  // Runs with reservations: their bills (RunResult::reservations), part of total_usd and of
  // by_workload (as kReservationsKey); the nodes in them cost nothing more while covered.
  std::optional<double> reservations_usd;
  UsdByName by_instance_type;
  UsdByName by_capacity_type;
  // By workload name, with what no workload requested under kUnallocatedKey: sums to total_usd.
  UsdByName by_workload;
};

// Whole GPUs (a time-sliced or MPS GPU counts its replicas, as the node advertises them) of
// nodes without a MIG layout; nodes with one report their MIG instances (slices) in `mig`.
struct GpuResult {
  double provisioned_gpu_hours = 0.0;
  double allocated_gpu_hours = 0.0;
  double busy_gpu_hours = 0.0;
  double allocation_ratio = 0.0;  // allocated ÷ provisioned; 0 without GPUs
  double utilization = 0.0;       // busy ÷ provisioned
  // One MIG profile's instances: offered from launch to termination, held by bound pods, busy
  // (Jobs' and bare Pods' while bound, services' while serving); what they cost (each node's
  // cost split over its instances by compute slices) per instance-hour offered and busy.
  struct Slices {
    double offered_slice_hours = 0.0;
    double allocated_slice_hours = 0.0;
    double busy_slice_hours = 0.0;
    double allocation_ratio = 0.0;  // allocated ÷ offered
    double utilization = 0.0;       // busy ÷ offered
    double usd = 0.0;
    double usd_per_slice_hour = 0.0;                // usd ÷ offered
    std::optional<double> usd_per_busy_slice_hour;  // usd ÷ busy; none when never busy
  };
  struct Mig {
    double gpu_hours = 0.0;  // physical GPUs × billed hours of the nodes with a MIG layout
    double usd = 0.0;        // what those nodes cost
    std::map<std::string, Slices, std::less<>> by_profile;
  };
  std::optional<Mig> mig;  // runs where a node had a MIG layout or a pod was busy on one
  // Nodes whose whole GPUs the device plugin shares by time-slicing or MPS, left out of the
  // figures above as MIG nodes are: their physical GPU-hours and cost, and their replicas (the
  // devices pods ask for) as Slices counts MIG instances.
  struct Shared {
    double gpu_hours = 0.0;
    double usd = 0.0;
    Slices replicas;
  };
  std::optional<Shared> shared;  // runs where such a node was launched
};

// sla: requests that arrived after warmup. requests = served + dropped + unfinished at the end;
// misses are dropped requests, served ones over an SLO threshold and unfinished ones past one:
// misses = dropped + ttft_misses + e2e_misses.
struct SlaResult {
  // Milliseconds, from a sketch with kSketchRelativeAccuracy (1%) (served requests only); the
  // mean is exact.
  struct Latency {
    double p50 = 0.0;
    double p95 = 0.0;
    double p99 = 0.0;
    double mean = 0.0;
  };
  // What the run reports for its services together and for each one.
  struct Totals {
    std::uint64_t requests = 0;
    std::uint64_t served = 0;
    std::uint64_t dropped = 0;
    std::uint64_t misses = 0;
    double miss_ratio = 0.0;
    std::uint64_t ttft_misses = 0;  // not dropped, over the TTFT threshold (e2e too, maybe)
    std::uint64_t e2e_misses = 0;   // not dropped, within the TTFT threshold, over the e2e one
    Latency latency_ms;
    Latency ttft_ms;
    // Per output token after the first; nullopt when no served request had more than one, or
    // the service does not time tokens (fixed, exponential and log-normal service times).
    std::optional<Latency> tpot_ms;
    // In the router's queue, before a replica took the request (engine-internal waits for KV
    // room are in the TTFT, not here).
    Latency queue_ms;
    // Output tokens served ÷ (last completion − first arrival after warmup), as trtllm-bench and
    // vLLM's benchmark count it; nullopt when no output token was served (or timed).
    std::optional<double> output_tokens_per_s;

    std::uint64_t unfinished() const { return requests - served - dropped; }
  };
  struct Service {
    std::string name;  // the Deployment reference, as the scenario names it
    Totals totals;
    std::int64_t peak_replicas = 0;
    double busy_gpu_hours = 0.0;
    // Pods on MIG instances: busy instance-hours by profile (not in busy_gpu_hours).
    std::map<std::string, double, std::less<>> busy_slice_hours;
    // Pods on GPUs shared by time-slicing or MPS: busy replica-hours (not in busy_gpu_hours).
    double busy_replica_hours = 0.0;
    bool fluid = false;  // simulated as rates (serving_mode: fluid), not request by request
    // Under the engine model: what its replicas' engines did over the run; else nullopt.
    struct Engine {
      std::uint64_t preemptions = 0;
      std::uint32_t peak_running = 0;    // on one replica at once
      double kv_cache_peak_share = 0.0;  // of one replica's KV cache blocks, 0-1
    };
    std::optional<Engine> engine;
  };

  Totals totals;
  // Of the dropped, those in flight when their replica's node went away (spot interruptions,
  // drains cut short).
  std::uint64_t dropped_in_flight = 0;
  std::vector<Service> by_service;  // in scenario order
};

struct PodsResult {
  // Percentiles (nearest rank, within 1%: the latency sketch) and the exact maximum of each
  // pod's time from creation to its first binding; pods still pending at the end count with the
  // time they waited so far.
  struct PendingSeconds {
    double p50 = 0.0;
    double p99 = 0.0;
    double max = 0.0;
  };
  struct Unschedulable {
    std::string pod;
    std::string workload;
    std::string reason;
  };

  std::int64_t created = 0;
  std::int64_t evicted = 0;
  // Deleted by kube-scheduler's preemption to make room for a pod of higher priority.
  std::int64_t preempted = 0;
  std::int64_t pending_at_end = 0;
  PendingSeconds pending_seconds;
  // Pods pending at the end with a reason, by pod name, at most kMaxUnschedulableListed.
  std::vector<Unschedulable> unschedulable;
  std::int64_t unschedulable_total = 0;
};

struct JobsResult {
  std::int64_t completed = 0;       // Jobs (manifests and trace rows) with every completion done
  std::int64_t pods_completed = 0;  // Job pods that succeeded
  // GPU time evicted Job pods lost (what they ran less what they saved in checkpoints, plus the
  // restart overheads of the pods that resumed), and what it cost at the nodes' prices.
  double lost_gpu_hours = 0.0;
  double rework_usd = 0.0;
};

// Nodes or pods by why their node was deleted.
using CountByReason = std::map<NodeDeletionReason, std::int64_t>;

struct NodesResult {
  std::int64_t launched = 0;
  std::int64_t peak = 0;  // nodes billed at once, draining ones included
  std::int64_t launch_failures = 0;
  std::int64_t spot_interruption_notices = 0;
  // Nodes that ran and were terminated, by reason: launched = their sum + nodes billed at the end.
  CountByReason terminated_by_reason;
};

// What headroom cost: the time billed nodes held only balloon pods (pods of negative priority, the
// overprovisioning convention; DaemonSets aside), and that time at each node's rate (instance,
// EBS and management fee, as cost counts them).
struct HeadroomResult {
  double node_hours = 0.0;
  double usd = 0.0;
};

// Reservations billed as AWS bills them, over the part of each window inside the run: an ODCR
// the on-demand rate for every reserved instance, used or not; a Capacity Block its fee per
// instance-hour. Used instance-hours are the billed time of the nodes launched into it.
struct ReservationResult {
  std::string id;
  std::string type;  // default | capacity-block
  std::string instance_type;
  std::string zone;
  std::int64_t count = 0;
  double usd_per_instance_hour = 0.0;
  double window_hours = 0.0;
  double reserved_instance_hours = 0.0;  // count × window_hours
  double used_instance_hours = 0.0;
  double utilization = 0.0;  // used ÷ reserved; 0 for an empty window
  double usd = 0.0;          // the bill
  double unused_usd = 0.0;   // the bill's unused instance-hours
};

struct ReservationsResult {
  std::vector<ReservationResult> by_id;  // in the scenario's order
  double reserved_instance_hours = 0.0;
  double used_instance_hours = 0.0;
  double utilization = 0.0;
  double usd = 0.0;
  double unused_usd = 0.0;
};

// What gangs cost (runs whose pods name PodGroups): nodes held by partial gangs
// (runner/gang_ledger.hpp: from a gang's pod waiting at Permit on a node that runs nothing until
// a pod is bound there or the node stops billing), their GPU-hours and price; the pods that
// waited at Permit, the PodGroups' Permit timeouts and the pods those rejected.
struct GangsResult {
  double idle_gpu_hours = 0.0;
  double idle_node_hours = 0.0;
  double idle_usd = 0.0;
  std::int64_t permit_waits = 0;
  std::int64_t permit_timeouts = 0;
  std::int64_t pods_rejected = 0;
};

struct EngineResult {
  std::uint64_t events = 0;
};

using CountByName = std::map<std::string, std::int64_t, std::less<>>;

// What Karpenter's disruption controller did: the commands it started (after validation), the
// nodes it deleted and the pods those deletions evicted, by reason (empty, underutilized,
// drifted, expired, spot_interruption), and the savings rate the commands claimed.
struct DisruptionResult {
  CountByName commands_by_method;
  std::int64_t replacements = 0;  // replacement nodes the commands launched
  CountByReason nodes_by_reason;
  CountByReason pods_evicted_by_reason;
  double claimed_savings_usd_per_hour = 0.0;
};
// Spot interruptions, scripted and drawn from the market: notices by offering ("g5.xlarge
// us-east-1a"), the rebalance recommendations that came before some, and the Job work lost.
// report.json has the section when the scenario has a spot market or any notice came.
struct SpotResult {
  std::int64_t notices = 0;
  CountByName notices_by_offering;
  std::int64_t rebalance_recommendations = 0;
  // Job work the interruptions' evictions lost (beyond their checkpoints), and its price.
  double lost_gpu_hours = 0.0;
  double rework_usd = 0.0;
  // Nodes launched on-demand though their NodeClaim allowed spot, and offering capacities and
  // prices set during the run.
  std::int64_t launches_fell_back_to_on_demand = 0;
  std::int64_t capacity_changes = 0;
  std::int64_t price_changes = 0;
};

// report.json's top-level keys, in order: scenario, seed, start, duration_s, cost, efficiency,
// gpu, sla, pods, jobs, nodes, headroom, then reservations, gangs, disruption and spot when
// present,
// then engine.
struct RunResult {
  std::string scenario;
  std::uint64_t seed = 0;
  std::int64_t start_unix_s = 0;  // the calendar time of t = 0
  SimDuration duration{};
  CostResult cost;
  EfficiencyResult efficiency;
  GpuResult gpu;
  SlaResult sla;
  PodsResult pods;
  JobsResult jobs;
  NodesResult nodes;
  HeadroomResult headroom;
  std::optional<ReservationsResult> reservations;  // runs with reservations
  std::optional<GangsResult> gangs;                // runs whose pods name PodGroups
  std::optional<DisruptionResult> disruption;
  std::optional<SpotResult> spot;
  EngineResult engine;
};

}  // namespace fleetsim
