// Replays a recorded metric series through one HPA or ScaledObject without a cluster: the
// engine of `fleetsim autoscale`, and how the autoscalers' semantics are tested end to end.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/autoscaling/keda.hpp"
#include "fleetsim/autoscaling/metric_series.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// In a replay every pod of a Resource Utilization metric requests this many units, and the
// series value is each pod's utilization in percent, so utilization reads back as the value.
inline constexpr std::int64_t kReplayRequestMilli = 100'000;

struct ReplayOptions {
  std::int32_t initial_replicas = 1;
  SimDuration duration{};  // syncs and polls run at every time up to and including it
  HpaControllerSettings settings{};
};

struct ReplicaChange {
  SimTime at;
  std::int32_t replicas = 0;
};

// The replica count at time 0, then one entry per change, in time order (a KEDA activation and
// the HPA's first step at the same instant are two entries).
//
// Replicas become Ready at once (and are past every initialization period). The HPA syncs at
// 0, 15 s, 30 s …; KEDA polls at 0, pollingInterval, …, a poll before an HPA sync at the same
// time. The value at time t is the last sample at or before t; before the first sample the
// metric is missing. Pods and Resource metrics: every pod has the value (Resource Utilization:
// the value is the utilization in percent); Object, External and prometheus triggers: the value
// is the query result.
std::vector<ReplicaChange> replay_hpa(const HorizontalPodAutoscalerSpec& spec,
                                      const MetricSeries& series, const ReplayOptions& options);
std::vector<ReplicaChange> replay_scaled_object(const ScaledObjectSpec& spec,
                                                const MetricSeries& series,
                                                const ReplayOptions& options);

}  // namespace fleetsim
