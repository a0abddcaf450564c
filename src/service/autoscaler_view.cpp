#include "fleetsim/service/autoscaler_view.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

namespace {

// Rounded, and saturated: a huge, infinite or NaN sample must not become a wrapped count.
std::int64_t to_milli(double value) { return saturate_to_int64(std::round(value * 1000.0)); }

bool labels_match(const MetricsStore& store, SeriesId id,
                  const std::vector<std::pair<std::string, std::string>>& selector) {
  for (const auto& [name, value] : selector)
    if (store.label_value(id, name) != value) return false;
  return true;
}

}  // namespace

AutoscalerView::AutoscalerView(const Cluster& cluster, const WorkloadController& workloads,
                               const MetricsStore& store,
                               std::span<const std::unique_ptr<ServiceRuntime>> services,
                               SimDuration scrape_interval)
    : cluster_(cluster),
      workloads_(workloads),
      store_(store),
      services_(services),
      scrape_interval_(scrape_interval) {}

const ServiceRuntime* AutoscalerView::service_of(WorkloadId target) const {
  for (const auto& s : services_)
    if (s->deployment() == target) return s.get();
  return nullptr;
}

std::vector<HpaPod> AutoscalerView::pods(WorkloadId target) const {
  std::vector<HpaPod> out;
  pods(target, out);
  return out;
}

void AutoscalerView::pods(WorkloadId target, std::vector<HpaPod>& out) const {
  out.clear();
  for (PodId id : workloads_.active_pods(target)) {
    const Pod& p = cluster_.pod(id);
    const bool bound = p.node != kNoNode;
    HpaPod pod{.phase = p.started ? HpaPodPhase::Running : HpaPodPhase::Pending,
               .deleting = p.terminating,
               .ready = std::nullopt,
               .ready_transition = p.ready ? p.ready_at : p.bound_at,
               .start_time = std::nullopt};
    // An unscheduled pod has no Ready condition yet; the kubelet sets one once it has the pod.
    if (bound) {
      pod.ready = p.ready ? ConditionStatus::True : ConditionStatus::False;
      pod.start_time = p.bound_at;
    }
    out.push_back(pod);
  }
}

std::vector<PodMetricValue> AutoscalerView::resource_usage(std::string_view resource,
                                                           WorkloadId target, SimTime now) const {
  const ServiceRuntime* service = service_of(target);
  const ServiceMetricsSettings settings =
      service != nullptr ? service->config().metrics : ServiceMetricsSettings{};
  const double idle = settings.idle_cpu_share;
  std::vector<PodMetricValue> out;
  for (PodId id : workloads_.active_pods(target)) {
    const Pod& p = cluster_.pod(id);
    const bool cpu = resource == "cpu";
    const std::int64_t request =
        cpu ? p.spec->requests.cpu_millis() : p.spec->requests.memory_bytes() * 1000;
    PodMetricValue v{.milli = std::nullopt,
                     .request_milli = request,
                     .timestamp = now,
                     .window = scrape_interval_};
    if (p.started) {
      if (!cpu) {
        v.milli = std::llround(static_cast<double>(request) * settings.memory_share);
      } else {
        std::optional<double> busy = service != nullptr ? service->busy_fraction(id) : 0.0;
        if (busy)
          v.milli = std::llround(static_cast<double>(request) * (idle + (1 - idle) * *busy));
      }
    }
    out.push_back(v);
  }
  return out;
}

MetricReading AutoscalerView::read(const MetricSpec& metric, WorkloadId target, SimTime now) const {
  PodSeriesCache cache;
  MetricReading out;
  read(metric, target, now, cache, out);
  return out;
}

// The custom metrics API (prometheus-adapter) finds a pod's series by its pod label; the ids it
// found stay right while no series joins or leaves the store's lists and the pods are the same.
void AutoscalerView::find_pod_series(const MetricSpec& metric, std::span<const PodId> pods,
                                     PodSeriesCache& cache) const {
  cache.listing = store_.listing();
  cache.pods.assign(pods.begin(), pods.end());
  cache.first.clear();
  cache.series.clear();
  for (PodId pod : pods) {
    cache.first.push_back(cache.series.size());
    for (SeriesId s : store_.series_of_pod(metric.name, cluster_.pod(pod).name))
      if (labels_match(store_, s, metric.selector)) cache.series.push_back(s);
  }
  cache.first.push_back(cache.series.size());
}

void AutoscalerView::read(const MetricSpec& metric, WorkloadId target, SimTime now,
                          PodSeriesCache& cache, MetricReading& out) const {
  out.available = true;
  out.milli = 0;
  out.pods.clear();
  switch (metric.source) {
    case MetricSourceType::Resource:
      out.pods = resource_usage(metric.name, target, now);
      return;
    case MetricSourceType::Pods: {
      // Each pod's latest scraped sample, from the series its pod label names.
      const std::vector<PodId>& pods = workloads_.active_pods(target);
      if (cache.listing != store_.listing() || cache.pods != pods)
        find_pod_series(metric, pods, cache);
      out.pods.assign(
          pods.size(),
          PodMetricValue{.milli = std::nullopt, .timestamp = now, .window = scrape_interval_});
      for (std::size_t i = 0; i < pods.size(); ++i) {
        // The last matching series wins, as the adapter's map keyed by pod name would have it.
        for (std::size_t k = cache.first[i]; k < cache.first[i + 1]; ++k)
          if (const std::optional<double> x = store_.instant(cache.series[k], now))
            out.pods[i].milli = to_milli(*x);
      }
      return;
    }
    case MetricSourceType::Object:
    case MetricSourceType::External: {
      // The external metrics API: the sum over the matching series; none is an error.
      bool found = false;
      double sum = 0;
      for (SeriesId s : store_.series_named(metric.name)) {
        if (!labels_match(store_, s, metric.selector)) continue;
        if (std::optional<double> x = store_.instant(s, now)) {
          found = true;
          sum += *x;
        }
      }
      if (!found) {
        out.available = false;
        return;
      }
      out.milli = to_milli(sum);
      return;
    }
  }
  out.available = false;
}

}  // namespace fleetsim
