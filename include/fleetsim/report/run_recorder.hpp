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

#include "fleetsim/cloud/cluster.hpp"
#include "fleetsim/cloud/sim_event.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/report/cost_ledger.hpp"
#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/timeseries_writer.hpp"

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

  // Hook for the serving model: GPU-seconds in which a Deployment's GPUs had work (DCGM's
  // GPU_UTIL sense). Jobs' and bare Pods' GPUs are counted busy while bound without it.
  void add_busy_gpu_seconds(double gpu_seconds) { ledger_.add_busy_gpu_seconds(gpu_seconds); }

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

  void on_node_event(const SimEvent& e, const Cluster& cluster);
  void on_pod_event(const SimEvent& e, const Cluster& cluster);
  PodTrack& track(PodId id);
  void sync_state(const Pod& pod);
  void sample_pending(PodTrack& t, SimDuration pending);
  const WorkloadRecord& workload_of(const Pod& pod, const Cluster& cluster) const;

  RunInfo info_;
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
