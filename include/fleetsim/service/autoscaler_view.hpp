// What the autoscalers read: a target's pods as the API server lists them, and their metrics as
// metrics-server, the custom and external metrics APIs (or KEDA's scalers) return them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/service/service_runtime.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

// The series a Pods metric reads for each pod of its target: found by the pods' names once, and
// kept while the target's pods and the store's listed series stay as they were, so that a sync
// hashes no names. One per metric of an autoscaler.
struct PodSeriesCache {
  std::optional<std::uint64_t> listing;  // the store's listing() when found; nullopt: never
  std::vector<PodId> pods;
  std::vector<std::size_t> first;  // pods[i]'s series are series[first[i], first[i + 1])
  std::vector<SeriesId> series;
};

class AutoscalerView {
 public:
  AutoscalerView(const Cluster& cluster, const WorkloadController& workloads,
                 const MetricsStore& store,
                 std::span<const std::unique_ptr<ServiceRuntime>> services,
                 SimDuration scrape_interval);

  std::vector<HpaPod> pods(WorkloadId target) const;
  // The same into `out`, whose capacity a caller keeps from one sync to the next.
  void pods(WorkloadId target, std::vector<HpaPod>& out) const;
  // One entry of spec.metrics (for Pods and Resource metrics, one value per pod of pods()).
  MetricReading read(const MetricSpec& metric, WorkloadId target, SimTime now) const;
  // The same into `out`, with `cache` kept for this metric from one sync to the next.
  void read(const MetricSpec& metric, WorkloadId target, SimTime now, PodSeriesCache& cache,
            MetricReading& out) const;
  // Per-pod usage of "cpu" or "memory" in milli-units, with each pod's request, as the service's
  // ServiceMetricsSettings emulate it: CPU from the idle share up with the GPU's busy share,
  // memory a fixed share (a pod of a Deployment without a service: the defaults, idle).
  std::vector<PodMetricValue> resource_usage(std::string_view resource, WorkloadId target,
                                             SimTime now) const;

 private:
  const ServiceRuntime* service_of(WorkloadId target) const;
  void find_pod_series(const MetricSpec& metric, std::span<const PodId> pods,
                       PodSeriesCache& cache) const;

  const Cluster& cluster_;
  const WorkloadController& workloads_;
  const MetricsStore& store_;
  std::span<const std::unique_ptr<ServiceRuntime>> services_;
  SimDuration scrape_interval_;
};

}  // namespace fleetsim
