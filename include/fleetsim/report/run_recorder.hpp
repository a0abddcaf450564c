// Records a run as it happens (an EventSink), streams events.jsonl and timeseries.csv, and
// builds report.json at the end (DESIGN.md §7).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/core/latency_sketch.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/report/cost_ledger.hpp"
#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/timeseries_writer.hpp"
#include "fleetsim/world/world.hpp"

namespace fleetsim {

// What the report says about the run itself.
struct RunInfo {
  std::string scenario;
  std::uint64_t seed = 0;
  SimDuration duration{};
  SimDuration report_interval{};
  // Every NodePool of the run (scripted ones included), in the order of timeseries.csv's
  // nodes_pool_<name> columns.
  std::vector<std::string> nodepools;
  // The scenario's services, in order (their timeseries.csv columns and sla.by_service keys).
  std::vector<std::string> services;
};

// report.json lists at most this many unschedulable pods (the total is given beside): enough to
// see every distinct reason of a typical failure, few enough to keep the report readable.
inline constexpr std::size_t kMaxUnschedulableListed = 100;

class RunRecorder final : public EventSink {
 public:
  // events_out and timeseries_out, when given, receive events.jsonl and timeseries.csv as the
  // run goes (memory stays flat); they must outlive the recorder.
  explicit RunRecorder(RunInfo info, std::ostream* events_out = nullptr,
                       std::ostream* timeseries_out = nullptr);

  void on_event(const SimEvent& e, const Cluster& cluster) override;
  void on_interval(SimTime now, const Cluster& cluster) override;
  void on_end(SimTime end, const Cluster& cluster) override;

  // Reads the world's services: their interval rows, and at the end their SLO statistics and
  // GPU busy time (DCGM's GPU_UTIL sense; Jobs' and bare Pods' GPUs count busy while bound).
  // The world must outlive the recorder's callbacks.
  void watch(const World& world) { world_ = &world; }

  bool ended() const { return ended_; }

  // report.json; call after on_end. Top-level keys: scenario, seed, duration_s, cost, gpu, sla,
  // pods, jobs, nodes, engine. Doubles are rounded to kReportDecimals.
  nlohmann::ordered_json report(std::uint64_t engine_events) const;

 private:
  // Where a pod stands, as the recorder last saw it (for the pending and running counts).
  enum class PodState : std::uint8_t { Unseen, Pending, Running, Done };
  struct PodTrack {
    PodState state = PodState::Unseen;
    bool pending_sampled = false;  // its pending time is in pending_us_
  };
  struct UnschedulablePod {
    std::string pod;
    std::string workload;
    std::string reason;
  };

  struct ServiceSummary {
    std::string name;
    std::uint64_t requests = 0;  // arrived after warmup
    std::uint64_t served = 0;
    std::uint64_t dropped = 0;
    std::uint64_t misses = 0;
    LatencySketch e2e_s;
    LatencySketch ttft_s;
    std::int64_t peak_replicas = 0;
    double busy_gpu_seconds = 0;
  };

  void on_node_event(const SimEvent& e, const Cluster& cluster);
  nlohmann::ordered_json sla_report() const;
  void on_pod_event(const SimEvent& e, const Cluster& cluster);
  PodTrack& track(PodId id);
  void sync_state(const Pod& pod);
  void sample_pending(PodTrack& t, SimDuration pending);
  const WorkloadRecord& workload_of(const Pod& pod, const Cluster& cluster) const;

  RunInfo info_;
  const World* world_ = nullptr;
  std::vector<ServiceSummary> services_;  // filled by on_end
  std::optional<EventWriter> events_;
  std::optional<TimeseriesWriter> timeseries_;
  std::vector<std::int64_t> pool_counts_;  // reused per interval, RunInfo order
  std::vector<std::int32_t> pool_column_;  // by NodeId: index into info_.nodepools, or -1

  CostLedger ledger_;
  std::vector<PodTrack> pods_;  // by PodId
  std::int64_t pods_pending_ = 0;
  std::int64_t pods_running_ = 0;

  std::int64_t pods_created_ = 0;
  std::int64_t pods_evicted_ = 0;
  std::vector<std::int64_t> pending_us_;  // one per pod that was ever pending, microseconds
  std::int64_t jobs_completed_ = 0;
  double lost_gpu_seconds_ = 0.0;
  std::int64_t nodes_launched_ = 0;
  std::int64_t nodes_peak_ = 0;
  std::int64_t launch_failures_ = 0;
  std::int64_t spot_interruption_notices_ = 0;
  std::map<std::string, std::int64_t, std::less<>> terminated_by_reason_;

  // Filled by on_end.
  bool ended_ = false;
  std::int64_t pods_pending_at_end_ = 0;
  std::vector<UnschedulablePod> unschedulable_;  // sorted by pod name, at most the listed max
  std::int64_t unschedulable_total_ = 0;
  std::map<std::string, double, std::less<>> cost_by_workload_;
};

}  // namespace fleetsim
