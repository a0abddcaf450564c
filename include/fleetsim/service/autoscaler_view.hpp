// What the autoscalers read: a target's pods as the API server lists them, and their metrics as
// metrics-server, the custom and external metrics APIs (or KEDA's scalers) return them.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/service/service_runtime.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

class AutoscalerView {
 public:
  AutoscalerView(const Cluster& cluster, const WorkloadController& workloads,
                 const MetricsStore& store,
                 std::span<const std::unique_ptr<ServiceRuntime>> services,
                 SimDuration scrape_interval);

  std::vector<HpaPod> pods(WorkloadId target) const;
  // One entry of spec.metrics (for Pods and Resource metrics, one value per pod of pods()).
  MetricReading read(const MetricSpec& metric, WorkloadId target, SimTime now) const;
  // Per-pod usage of "cpu" or "memory" in milli-units, with each pod's request, as the service's
  // ServiceMetricsSettings emulate it: CPU from the idle share up with the GPU's busy share,
  // memory a fixed share (a pod of a Deployment without a service: the defaults, idle).
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

}  // namespace fleetsim
