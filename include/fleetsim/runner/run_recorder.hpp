// Records a run as it happens (an EventSink): the accounting behind RunResult, and the rows of
// the time series (DESIGN.md §7).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/latency_sketch.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/runner/cost_ledger.hpp"
#include "fleetsim/runner/gang_ledger.hpp"
#include "fleetsim/runner/run_result.hpp"
#include "fleetsim/runner/timeseries_row.hpp"
#include "fleetsim/world/world.hpp"

namespace fleetsim {

// What the result says about the run itself.
struct RunInfo {
  std::string scenario;
  std::uint64_t seed = 0;
  std::int64_t start_unix_s = 0;
  SimDuration duration{};
  SimDuration report_interval{};
  // Every NodePool of the run (scripted ones included), in the order of TimeseriesRow's
  // nodes_by_pool.
  std::vector<std::string> nodepools;  // node groups, under the Cluster Autoscaler
  bool node_groups = false;            // the Cluster Autoscaler's run
  // The scenario's services, in order (TimeseriesRow's services and sla.by_service).
  std::vector<std::string> services;
  // The scenario draws spot interruptions (`spot:`): report.json gets its spot section even
  // when none came.
  bool spot_market = false;
  // The scenario's reservations, and each one's price per instance-hour as AWS bills it (the
  // on-demand rate of an ODCR's type in its zone; a Capacity Block's fee).
  std::vector<Reservation> reservations;
  // Some pod names a PodGroup: report.json gets its gangs section.
  bool gangs = false;
  std::vector<double> reservation_rates;
};

// RunResult lists at most this many unschedulable pods (the total is given beside): enough to
// see every distinct reason of a typical failure, few enough to keep the report readable.
inline constexpr std::size_t kMaxUnschedulableListed = 100;

class RunRecorder final : public EventSink {
 public:
  // `pricing` (the cloud's: what each node costs an hour) must outlive the recorder. Each of
  // `timeseries` receives its columns at once and a row per interval as the run goes (memory
  // stays flat); they must outlive the recorder. Without any, no rows are built.
  RunRecorder(RunInfo info, const NodePricing& pricing,
              std::vector<TimeseriesSink*> timeseries = {});

  void on_event(const SimEvent& e, const Cluster& cluster) override;
  void on_interval(SimTime now, const Cluster& cluster) override;
  void on_end(SimTime end, const Cluster& cluster) override;

  // Reads the world's services: their interval rows, and at the end their SLO statistics and
  // GPU busy time (DCGM's GPU_UTIL sense; Jobs' and bare Pods' GPUs count busy while bound); and
  // its Jobs' checkpoints (the work an evicted pod saved). The world must outlive the
  // recorder's callbacks.
  void watch(const World& world) { world_ = &world; }

  bool ended() const { return ended_; }

  // What the run measured; call after on_end. Figures are not rounded.
  RunResult result(std::uint64_t engine_events) const;

 private:
  // Where a pod stands, as the recorder last saw it (for the pending and running counts).
  enum class PodState : std::uint8_t { Unseen, Pending, Running, Done };
  struct PodTrack {
    PodState state = PodState::Unseen;
    bool pending_sampled = false;  // its pending time is in pending_s_
  };
  struct ServiceSummary {
    std::string name;
    std::uint64_t requests = 0;  // arrived after warmup
    std::uint64_t served = 0;
    std::uint64_t dropped = 0;
    std::uint64_t dropped_in_flight = 0;
    std::uint64_t misses = 0;
    std::uint64_t ttft_misses = 0;
    std::uint64_t e2e_misses = 0;
    LatencySketch e2e_s;
    LatencySketch ttft_s;
    LatencySketch tpot_s;
    LatencySketch queue_s;
    std::uint64_t output_tokens = 0;
    SimTime first_arrival = SimTime::max();
    SimTime last_completion = SimTime::min();
    std::int64_t peak_replicas = 0;
    double busy_gpu_seconds = 0;
    std::vector<std::pair<std::string, double>> busy_slice_seconds;
    double busy_replica_seconds = 0;
    bool fluid = false;
    std::optional<SlaResult::Service::Engine> engine;
  };

  void on_node_event(const SimEvent& e, const Cluster& cluster);
  SlaResult sla_result() const;
  ReservationsResult reservations_result() const;
  void on_pod_event(const SimEvent& e, const Cluster& cluster);
  void add_lost_work(const Pod& pod, const Node& node, SimDuration lost, NodeDeletionReason reason);
  PodTrack& track(PodId id);
  void sync_state(const Pod& pod);
  void sample_pending(PodTrack& t, SimDuration pending);
  const WorkloadRecord& workload_of(const Pod& pod, const Cluster& cluster) const;
  // The watched world's, or none (no Job checkpoints).
  const JobCheckpoints& checkpoints() const;

  RunInfo info_;
  const NodePricing& pricing_;
  const World* world_ = nullptr;
  std::vector<ServiceSummary> services_;  // filled by on_end
  std::vector<TimeseriesSink*> timeseries_;
  std::vector<std::int64_t> pool_counts_;  // reused per interval, RunInfo order
  std::vector<double> pool_cost_rates_;    // likewise
  std::vector<std::int32_t> pool_column_;  // by NodeId: index into info_.nodepools, or -1

  CostLedger ledger_;
  GangLedger gangs_;
  std::map<PodId, PodTrack> pods_;  // pods not yet done and counted
  std::int64_t pods_pending_ = 0;
  std::int64_t pods_running_ = 0;

  std::int64_t pods_created_ = 0;
  std::int64_t pods_evicted_ = 0;
  std::int64_t pods_preempted_ = 0;
  // Every pod's pending time, in flat memory: percentiles within 1%, the maximum exact.
  LatencySketch pending_s_;
  std::int64_t jobs_completed_ = 0;      // Jobs whose completions are all done
  std::int64_t job_pods_completed_ = 0;  // their pods that succeeded
  double lost_gpu_seconds_ = 0.0;
  double rework_usd_ = 0.0;
  std::int64_t nodes_launched_ = 0;
  std::int64_t nodes_peak_ = 0;
  std::int64_t launch_failures_ = 0;
  std::int64_t spot_interruption_notices_ = 0;
  SpotResult spot_;
  CountByReason terminated_by_reason_;
  DisruptionResult disruption_;

  // Filled by on_end.
  bool ended_ = false;
  std::int64_t pods_pending_at_end_ = 0;
  std::vector<PodsResult::Unschedulable> unschedulable_;  // by pod name, at most the listed max
  std::int64_t unschedulable_total_ = 0;
  std::map<std::string, double, std::less<>> cost_by_workload_;
};

}  // namespace fleetsim
