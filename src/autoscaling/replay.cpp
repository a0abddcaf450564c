#include "fleetsim/autoscaling/replay.hpp"

#include <algorithm>
#include <cmath>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

namespace {

// The series value as a metrics API carries it: a quantity in thousandths.
// Rounded, and saturated: a huge, infinite or NaN sample must not become a wrapped count.
std::int64_t to_milli(double value) { return saturate_to_int64(std::round(value * 1000)); }

std::vector<HpaPod> ready_pods(std::int32_t replicas) {
  return std::vector<HpaPod>(static_cast<std::size_t>(std::max(replicas, 0)));
}

// Every pod reports `value`; nullopt leaves every pod without a sample.
std::vector<PodMetricValue> pod_samples(std::size_t pods, std::optional<double> value,
                                        SimTime now) {
  PodMetricValue s{.milli = std::nullopt,
                   .request_milli = kReplayRequestMilli,
                   .timestamp = now,
                   .window = kDefaultMetricWindow};
  if (value) s.milli = to_milli(*value);
  return std::vector<PodMetricValue>(pods, s);
}

MetricReading reading_for(const MetricSpec& metric, std::size_t pods, std::optional<double> value,
                          SimTime now) {
  if (metric.source == MetricSourceType::Object || metric.source == MetricSourceType::External) {
    if (!value) return MetricReading{.available = false};
    return MetricReading{.available = true, .pods = {}, .milli = to_milli(*value)};
  }
  return MetricReading{.available = true, .pods = pod_samples(pods, value, now), .milli = 0};
}

}  // namespace

std::vector<ReplicaChange> replay_hpa(const HorizontalPodAutoscalerSpec& spec,
                                      const MetricSeries& series, const ReplayOptions& options) {
  HpaController hpa(spec, options.settings);
  std::int32_t replicas = options.initial_replicas;
  std::vector<ReplicaChange> out{{kSimStart, replicas}};
  const SimTime end = at(options.duration);
  for (SimTime t = kSimStart; t <= end; t += kHpaSyncPeriod) {
    std::optional<double> value = series.value_at(t);
    HpaInputs in{.current_replicas = replicas,
                 .status_replicas = replicas,
                 .pods = ready_pods(replicas),
                 .metrics = {}};
    for (const MetricSpec& m : hpa.metrics()) {
      in.metrics.push_back(reading_for(m, in.pods.size(), value, t));
    }
    HpaDecision d = hpa.decide(t, in);
    if (d.desired != replicas) {
      replicas = d.desired;
      out.push_back({t, replicas});
    }
  }
  return out;
}

std::vector<ReplicaChange> replay_scaled_object(const ScaledObjectSpec& spec,
                                                const MetricSeries& series,
                                                const ReplayOptions& options) {
  FLEETSIM_ASSERT(spec.polling_interval > SimDuration{0});
  ScaledObjectController keda(spec, kSimStart, options.settings);
  std::int32_t replicas = options.initial_replicas;
  std::vector<ReplicaChange> out{{kSimStart, replicas}};
  const SimTime end = at(options.duration);

  auto inputs = [&](SimTime t) {
    std::optional<double> value = series.value_at(t);
    KedaInputs in{.current_replicas = replicas,
                  .status_replicas = replicas,
                  .pods = ready_pods(replicas),
                  .triggers = {}};
    for (const KedaTrigger& trigger : spec.triggers) {
      TriggerReading r{.value = std::nullopt, .error = false, .pods = {}};
      if (trigger.type == KedaTriggerType::Prometheus) {
        r.value = value;
      } else {
        r.pods = pod_samples(in.pods.size(), value, t);
      }
      in.triggers.push_back(std::move(r));
    }
    return in;
  };
  auto apply = [&](SimTime t, std::int32_t desired) {
    if (desired == replicas) return;
    replicas = desired;
    out.push_back({t, replicas});
  };

  SimTime next_poll = kSimStart;
  SimTime next_sync = kSimStart;
  while (true) {
    const SimTime t = std::min(next_poll, next_sync);
    if (t > end) break;
    // KEDA's poll runs before an HPA sync at the same instant.
    if (t == next_poll) {
      apply(t, keda.poll(t, inputs(t)).desired);
      next_poll += spec.polling_interval;
    }
    if (t == next_sync) {
      apply(t, keda.sync_hpa(t, inputs(t)).desired);
      next_sync += kHpaSyncPeriod;
    }
  }
  return out;
}

}  // namespace fleetsim
