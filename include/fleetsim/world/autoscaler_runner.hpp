// HPA and KEDA inside a run: each reconciles on its own clock, reads the target Deployment's pods
// and the scraped metrics, and writes the Deployment's replicas.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/autoscaling/keda.hpp"
#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/autoscaling/promql.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/workload/workload_controller.hpp"
#include "fleetsim/world/service_runtime.hpp"

namespace fleetsim {

// The CPU usage model behind Resource cpu metrics: a serving pod uses this share of its CPU
// request when idle (the server's event loop, the metrics endpoint) and all of it while its GPU
// has work, linearly in between with the GPU's busy share. A pod of a Deployment without a
// service runs idle.
inline constexpr double kIdleCpuShare = 0.1;

// What the autoscalers read: a target's pods as the API server lists them, and their metrics as
// metrics-server, the custom and external metrics APIs (or KEDA's scalers) return them.
class AutoscalerView {
 public:
  AutoscalerView(const Cluster& cluster, const WorkloadController& workloads,
                 const MetricsStore& store,
                 std::span<const std::unique_ptr<ServiceRuntime>> services,
                 SimDuration scrape_interval);

  std::vector<HpaPod> pods(WorkloadId target) const;
  // One entry of spec.metrics (for Pods and Resource metrics, one value per pod of pods()).
  MetricReading read(const MetricSpec& metric, WorkloadId target, SimTime now) const;
  // Per-pod usage of "cpu" or "memory" in milli-units, with each pod's request.
  std::vector<PodMetricValue> resource_usage(std::string_view resource, WorkloadId target,
                                             SimTime now) const;

 private:
  const ServiceRuntime* service_of(WorkloadId target) const;

  const Cluster& cluster_;
  const WorkloadController& workloads_;
  const MetricsStore& store_;
  std::span<const std::unique_ptr<ServiceRuntime>> services_;
  SimDuration scrape_interval_;
};

// One HorizontalPodAutoscaler: syncs every 15 s from t = 0 (kube-controller-manager's
// --horizontal-pod-autoscaler-sync-period).
class HpaRunner final : private EventHandler {
 public:
  HpaRunner(Simulation& sim, WorkloadController& workloads, const AutoscalerView& view,
            const HorizontalPodAutoscalerSpec& spec, WorkloadId target);
  void start();

 private:
  void on_event(SimTime now, std::uint64_t tag) override;

  Simulation& sim_;
  WorkloadController& workloads_;
  const AutoscalerView& view_;
  HpaController hpa_;
  WorkloadId target_;
};

// One ScaledObject: KEDA polls every pollingInterval (Phase::ScalerPolls) and the HPA it owns
// syncs every 15 s (Phase::Autoscalers), both from t = 0.
class KedaRunner final : private EventHandler {
 public:
  KedaRunner(Simulation& sim, WorkloadController& workloads, const AutoscalerView& view,
             const MetricsStore& store, const ScaledObjectSpec& spec, WorkloadId target);
  void start();
  // The longest PromQL range window of its triggers (for the store's retention).
  SimDuration longest_range() const;

 private:
  enum class Tick : std::uint64_t { Poll = 0, HpaSync = 1 };
  void on_event(SimTime now, std::uint64_t tag) override;
  KedaInputs inputs(SimTime now) const;

  Simulation& sim_;
  WorkloadController& workloads_;
  const AutoscalerView& view_;
  const MetricsStore& store_;
  ScaledObjectController keda_;
  std::vector<std::optional<PromQuery>> queries_;  // by trigger; prometheus triggers only
  WorkloadId target_;
};

}  // namespace fleetsim
