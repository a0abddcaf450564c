// One service of the scenario in a run: its traffic, the serving model over the Deployment's
// pods, their start-up (image pull, model load, probes) and drain, their scraped metrics, and
// the SLO statistics.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/catalog/gpu_sharing.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/kube/kubelet.hpp"
#include "fleetsim/service/closed_loop_traffic.hpp"
#include "fleetsim/service/mig_instances.hpp"
#include "fleetsim/service/service_config.hpp"
#include "fleetsim/service/service_interval_row.hpp"
#include "fleetsim/serving/fluid_serving.hpp"
#include "fleetsim/serving/serving_model.hpp"
#include "fleetsim/serving/serving_stats.hpp"
#include "fleetsim/traffic/traffic_source.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

class ServiceRuntime final : public PodWorkListener,
                             private ServingObserver,
                             private ReplicaListener {
 public:
  struct Inputs {
    Simulation& sim;
    Cluster& cluster;
    WorkloadController& workloads;
    Kubelet& kubelet;
    const Catalog& catalog;
    MetricsStore& metrics;  // where its pods' series are scraped to
    const ServiceConfig& config;
    WorkloadId deployment;
    SimTime warmup_end;
    // The run's time-sliced GPUs, shared by every service (null: replicas never take turns).
    TimeSlicedGpus* time_slices = nullptr;
    // The scenario's resource names and the MIG profiles per GPU, for pods that ask for MIG
    // devices (nvidia.com/mig-<profile>, the mixed strategy); null: none does.
    const ResourceRegistry* resources = nullptr;
    std::span<const MigLayout> mig_layouts;
    // The run's MIG instances held by served pods, shared by every service (null: pods on MIG
    // instances export no per-instance series).
    MigInstanceSeats* mig_seats = nullptr;
    FluidPacing fluid_pacing;  // the run's scrapes and report rows (serving_mode: fluid)
  };
  explicit ServiceRuntime(Inputs in);
  ServiceRuntime(const ServiceRuntime&) = delete;
  ServiceRuntime& operator=(const ServiceRuntime&) = delete;

  // Starts the traffic (call once, before the run).
  void start();

  // The kubelet's hooks, for pods of this service's Deployment: a replica per bound pod, which
  // takes requests once Ready and finishes its requests in flight while it drains.
  void on_pod_bound(PodId pod) override;
  void on_pod_ready(PodId pod) override;
  void on_pod_draining(PodId pod) override;
  void on_pod_killed(PodId pod) override;
  // On a time-sliced GPU, vLLM refuses to start while the servers already there leave less free
  // memory than its gpu_memory_utilization asks of the whole GPU.
  std::string start_failure(PodId pod) override;

  // One scrape: writes the service's and each running pod's series.
  void scrape(SimTime now);
  // The busy share of the pod's GPUs over the last scrape interval, once it has been scraped.
  std::optional<double> busy_fraction(PodId pod) const;

  // Closes the report interval ending now.
  ServiceIntervalRow close_interval(SimTime now);
  // At the end of the run: judges the requests still unfinished.
  void finish(SimTime end);

  const std::string& name() const { return name_; }
  const ServiceConfig& config() const { return config_; }
  WorkloadId deployment() const { return deployment_; }
  const ServingStats& stats() const { return stats_; }
  const ServingBackend& model() const { return *serving_; }
  // Under the engine model: its engines' totals so far; else nullopt.
  std::optional<EngineTotals> engine_totals() const;
  // Busy time × devices of its pods on whole GPUs; pods on MIG instances count in
  // busy_slice_seconds instead, pods on GPUs shared by time-slicing or MPS in
  // busy_replica_seconds.
  double busy_gpu_seconds() const;
  // Busy time × MIG instances held, by profile, in the order first seen.
  std::vector<std::pair<std::string, double>> busy_slice_seconds() const;
  // Busy time × shared GPUs' replicas held.
  double busy_replica_seconds() const;
  // The most active pods seen at a report instant.
  std::int64_t peak_replicas() const { return peak_replicas_; }

 private:
  struct TrackedPod {
    PodId pod;
    const Pod* object = nullptr;  // the cluster's, which holds it (at one address) until untracked
    SeriesId gpu_util, engine_active, running, waiting, success;
    SeriesId kv_cache, kv_cache_v1;  // under the engine model only
    bool series = false;             // created at the pod's first scrape
    SimDuration busy_at_last_scrape{};
    std::optional<double> busy_fraction;
    std::optional<TimeSlicedGpus::Handle> seat;  // on a time-sliced GPU
    std::int32_t slice = -1;                     // on MIG instances: index into slice_busy_
    double slice_instances = 0;                  // how many (a time-sliced one counts a share)
    double replicas = 0;  // on whole GPUs shared by time-slicing or MPS: the replicas it holds
    std::optional<MigInstanceSeat> mig_seat;  // its (first) MIG instance, for DCGM's labels
  };
  // Busy time of pods on MIG instances, by profile, of pods already gone: instance-seconds.
  struct SliceBusy {
    std::string profile;
    double retired_instance_seconds = 0;
  };

  void on_request_done(const RequestOutcome& outcome) override;
  void on_replica_drained(ReplicaId id, SimTime now, SimDuration busy) override;
  // The pod's replica is gone with `busy` over its life: a MIG pod's goes to its profile, a
  // shared GPU's to the replicas.
  void retire_busy(const TrackedPod& t, SimDuration busy);
  // Device-seconds busy on MIG instances and shared GPUs so far (what busy_gpu_seconds leaves
  // out).
  double sliced_device_seconds() const;
  bool sliced(const TrackedPod& t) const { return t.slice >= 0 || t.replicas > 0; }
  void untrack(PodId pod, SimTime now);
  bool has_engine() const;
  // The mean KV-cache use of the Ready replicas now; nullopt without any or without the engine.
  std::optional<double> mean_kv_cache_usage() const;
  const TrackedPod* tracked(PodId pod) const;
  LlmRates rates_for(const Node& node) const;
  // The step costs of a replica on the node's type (the engine model), made at the first use.
  const StepCost& engine_for(const Node& node);
  // Where the pod's replica takes turns on a time-sliced GPU of its node, if it does.
  std::optional<TimeSliceSeat> time_slice_for(const Pod& pod, const Node& node) const;

  Simulation& sim_;
  Cluster& cluster_;
  WorkloadController& workloads_;
  Kubelet& kubelet_;
  const Catalog& catalog_;
  MetricsStore& metrics_;
  const ServiceConfig& config_;
  WorkloadId deployment_;
  std::string name_;  // the Deployment as the scenario names it (report keys)
  // Devices per pod: whole GPUs (or their shares on a sliced node), or MIG devices of one
  // profile (mig_), each of its GPU's share.
  std::optional<MigRequest> mig_;
  std::span<const MigLayout> mig_layouts_;
  std::int64_t gpus_per_pod_ = 0;
  TimeSlicedGpus* time_slices_ = nullptr;
  MigInstanceSeats* mig_seats_ = nullptr;

  std::vector<std::unique_ptr<StepCost>> engines_;  // by catalog type, under the engine model
  // On nodes whose devices are shares of a GPU: by type and share (few; searched in order).
  struct SharedEngine {
    std::uint32_t type = 0;
    GpuShare share;
    std::unique_ptr<StepCost> cost;
  };
  std::vector<SharedEngine> shared_engines_;
  std::unique_ptr<TrafficSource> traffic_;
  std::unique_ptr<ClosedLoopTraffic> closed_loop_;  // instead of traffic_, for `pattern: closed`
  // The service's serving model, request by request (requests_) or as rates (fluid_).
  std::unique_ptr<ServingBackend> serving_;
  ServingModel* requests_ = nullptr;
  FluidServing* fluid_ = nullptr;
  ServingStats stats_;
  std::vector<TrackedPod> pods_;  // bound pods with a replica, by bind order
  // Each tracked pod's index in pods_: lookups only, never iterated.
  std::unordered_map<PodId, std::size_t> position_;
  SeriesId requests_series_ = 0;  // the gateway's view of the service
  SeriesId queue_series_ = 0;
  SimTime last_scrape_{};

  std::uint64_t arrived_at_interval_ = 0;
  std::uint64_t misses_at_interval_ = 0;
  std::uint64_t dropped_at_interval_ = 0;
  SimDuration busy_at_interval_{};
  double sliced_at_interval_ = 0;  // sliced_device_seconds() when the interval began
  std::vector<SliceBusy> slice_busy_;
  double retired_sliced_device_seconds_ = 0;
  double retired_replica_seconds_ = 0;
  bool any_sliced_ = false;  // a pod on MIG instances or a shared GPU was tracked
  SimTime interval_start_{};
  std::int64_t peak_replicas_ = 0;
};

}  // namespace fleetsim
