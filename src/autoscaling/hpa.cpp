// Follows kubernetes/kubernetes pkg/controller/podautoscaler: horizontal.go (reconcileAutoscaler,
// computeReplicasForMetrics, the two normalizations, the event history) and replica_calculator.go
// (groupPods and the per-metric formulas). Comparisons keep upstream's strictness (Before/After)
// because simulated times tie exactly where real ones almost never do.
#include "fleetsim/autoscaling/hpa.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

namespace {

constexpr std::int32_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kMinInt32 = std::numeric_limits<std::int32_t>::min();

// Go's int32(math.Ceil(x)), with the MaxInt32 cap upstream applies to External and Object ratios
// applied everywhere: a huge ratio must not wrap into a negative replica count.
std::int32_t ceil_to_int32(double x) {
  double c = std::ceil(x);
  if (!(c < static_cast<double>(kMaxInt32))) return kMaxInt32;
  if (c < 0) return 0;
  return static_cast<std::int32_t>(c);
}

// A whole number of replicas held in int32 without overflow (Go's int32 arithmetic would wrap on
// values no valid spec produces).
std::int32_t clamp_to_int32(double x) {
  if (std::isnan(x)) return 0;
  return static_cast<std::int32_t>(
      std::clamp(x, static_cast<double>(kMinInt32), static_cast<double>(kMaxInt32)));
}

bool is_pod_ready(const HpaPod& pod) {
  return pod.phase == HpaPodPhase::Running && pod.ready == ConditionStatus::True;
}

}  // namespace

std::string_view to_string(HpaReason reason) {
  switch (reason) {
    case HpaReason::ScalingDisabled:
      return "ScalingDisabled";
    case HpaReason::AboveMaxReplicas:
      return "AboveMaxReplicas";
    case HpaReason::BelowMinReplicas:
      return "BelowMinReplicas";
    case HpaReason::MetricsFailed:
      return "MetricsFailed";
    case HpaReason::DesiredWithinRange:
      return "DesiredWithinRange";
    case HpaReason::ScaleUpLimit:
      return "ScaleUpLimit";
    case HpaReason::ScaleDownLimit:
      return "ScaleDownLimit";
    case HpaReason::TooManyReplicas:
      return "TooManyReplicas";
    case HpaReason::TooFewReplicas:
      return "TooFewReplicas";
  }
  return "?";
}

HpaController::HpaController(HorizontalPodAutoscalerSpec spec, HpaControllerSettings settings)
    : spec_(std::move(spec)),
      settings_(settings),
      metrics_(effective_metrics(spec_)),
      scale_up_(resolve_scale_up(spec_.behavior ? spec_.behavior->scale_up : std::nullopt)),
      scale_down_(resolve_scale_down(spec_.behavior ? spec_.behavior->scale_down : std::nullopt,
                                     settings_.downscale_stabilization)),
      tolerances_{settings_.tolerance, settings_.tolerance} {
  FLEETSIM_ASSERT(spec_.max_replicas >= 1);
  FLEETSIM_ASSERT(spec_.min_replicas >= 1 && spec_.min_replicas <= spec_.max_replicas);
  // tolerancesForHpa: per-direction overrides only with a behavior and the gate on.
  if (spec_.behavior && settings_.configurable_tolerance) {
    if (scale_down_.tolerance) tolerances_.down = *scale_down_.tolerance;
    if (scale_up_.tolerance) tolerances_.up = *scale_up_.tolerance;
  }
}

bool HpaController::reads_metrics(std::int32_t current) const {
  return current != 0 && current <= spec_.max_replicas && current >= spec_.min_replicas;
}

HpaDecision HpaController::decide(SimTime now, const HpaInputs& inputs) {
  const std::int32_t current = inputs.current_replicas;
  // recordInitialRecommendation: a fresh HPA cannot scale down until this entry ages out.
  if (recommendations_.empty()) recommendations_.push_back({current, now});

  HpaDecision out;
  if (current == 0) {
    // Scaling is disabled at zero (without the alpha HPAScaleToZero gate).
    return {.desired = 0, .reason = HpaReason::ScalingDisabled, .metric_recommendation = -1};
  }
  if (current > spec_.max_replicas) {
    out = {.desired = spec_.max_replicas, .reason = HpaReason::AboveMaxReplicas};
  } else if (current < spec_.min_replicas) {
    out = {.desired = spec_.min_replicas, .reason = HpaReason::BelowMinReplicas};
  } else {
    FLEETSIM_ASSERT(inputs.metrics.size() == metrics_.size());
    // computeReplicasForMetrics: the largest valid proposal; no scale-down on partial data.
    std::int32_t replicas = 0;
    std::size_t invalid = 0;
    for (std::size_t i = 0; i < metrics_.size(); ++i) {
      Proposal p = compute_metric(now, metrics_[i], inputs.metrics[i], inputs);
      if (!p.valid) {
        ++invalid;
        continue;
      }
      if (replicas == 0 || p.replicas > replicas) replicas = p.replicas;
    }
    if (invalid >= metrics_.size() || (invalid > 0 && replicas < current)) {
      return {.desired = current, .reason = HpaReason::MetricsFailed, .metric_recommendation = -1};
    }
    out.metric_recommendation = replicas;
    std::int32_t desired = std::max(replicas, 0);
    out.desired = spec_.behavior ? normalize_with_behavior(now, current, desired, out.reason)
                                 : normalize_legacy(now, current, desired, out.reason);
  }
  if (out.desired != current) store_scale_event(now, current, out.desired);
  return out;
}

// groupPods. The counted samples are those of the ready pods: upstream's calculation removes the
// ignored and unready pods from the metrics, and a missing pod has none.
void HpaController::group_pods(const std::vector<HpaPod>& pods,
                               const std::vector<PodMetricValue>& samples, bool cpu, SimTime now) {
  PodGroups& g = groups_;
  g.ready_count = 0;
  g.unready.clear();
  g.missing.clear();
  g.counted.clear();
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const HpaPod& pod = pods[i];
    if (pod.deleting || pod.phase == HpaPodPhase::Failed || pod.phase == HpaPodPhase::Succeeded)
      continue;  // ignored
    if (pod.phase == HpaPodPhase::Pending) {
      g.unready.push_back(i);
      continue;
    }
    const PodMetricValue& sample = samples[i];
    if (!sample.milli) {
      g.missing.push_back(i);
      continue;
    }
    if (cpu) {
      // CPU samples of a pod that is starting up are distorted by its start-up work.
      bool unready = false;
      if (!pod.ready || !pod.start_time) {
        unready = true;
      } else if (*pod.start_time + settings_.cpu_initialization_period > now) {
        unready = *pod.ready == ConditionStatus::False ||
                  sample.timestamp < pod.ready_transition + sample.window;
      } else {
        unready = *pod.ready == ConditionStatus::False &&
                  *pod.start_time + settings_.initial_readiness_delay > pod.ready_transition;
      }
      if (unready) {
        g.unready.push_back(i);
        continue;
      }
    }
    ++g.ready_count;
    g.counted.push_back({i, *sample.milli});
  }
}

HpaController::Proposal HpaController::compute_metric(SimTime now, const MetricSpec& metric,
                                                      const MetricReading& reading,
                                                      const HpaInputs& inputs) {
  if (!reading.available) return {};
  const std::int32_t current = inputs.current_replicas;
  const std::int32_t status_replicas = inputs.status_replicas.value_or(current);
  const Tolerances& tol = tolerances_;

  // getUsageRatioReplicaCount (Object and External Value targets).
  auto usage_ratio_count = [&](double ratio) -> Proposal {
    if (current == 0) return {true, ceil_to_int32(ratio)};
    if (tol.within(ratio)) return {true, current};
    if (inputs.pods.empty()) return {};  // "no pods returned by selector"
    std::int64_t ready = std::count_if(inputs.pods.begin(), inputs.pods.end(), is_pod_ready);
    return {true, ceil_to_int32(ratio * static_cast<double>(ready))};
  };
  // Get{Object,External}PerPodMetricReplicas (AverageValue targets): against status.replicas.
  auto per_pod_count = [&](std::int64_t usage, std::int64_t target) -> Proposal {
    double ratio = static_cast<double>(usage) /
                   (static_cast<double>(target) * static_cast<double>(status_replicas));
    if (!tol.within(ratio)) {
      return {true, ceil_to_int32(static_cast<double>(usage) / static_cast<double>(target))};
    }
    return {true, status_replicas};
  };

  switch (metric.source) {
    case MetricSourceType::Object:
    case MetricSourceType::External:
      if (metric.target.type == MetricTargetType::Value) {
        return usage_ratio_count(static_cast<double>(reading.milli) /
                                 static_cast<double>(metric.target.milli));
      }
      return per_pod_count(reading.milli, metric.target.milli);
    case MetricSourceType::Pods:
    case MetricSourceType::Resource:
      break;
  }

  // Pods and Resource metrics: the per-pod calculations.
  if (inputs.pods.empty()) return {};  // "no pods returned by selector"
  FLEETSIM_ASSERT(reading.pods.size() == inputs.pods.size());
  const bool cpu = metric.source == MetricSourceType::Resource && metric.name == "cpu";
  group_pods(inputs.pods, reading.pods, cpu, now);
  const PodGroups& g = groups_;
  std::vector<Counted>& counted = groups_.counted;
  if (counted.empty()) return {};  // "did not receive metrics for targeted pods"

  const bool utilization = metric.source == MetricSourceType::Resource &&
                           metric.target.type == MetricTargetType::Utilization;
  const std::int64_t target = utilization ? metric.target.average_utilization : metric.target.milli;
  if (utilization) {
    // calculateRequests: every pod the selector matches must request the resource.
    for (const PodMetricValue& s : reading.pods)
      if (s.request_milli <= 0) return {};
  }
  // GetResourceUtilizationRatio (integer percent of the summed requests) or
  // GetMetricUsageRatio (integer mean), each over the counted samples.
  auto ratio_of = [&](const std::vector<Counted>& samples) -> std::optional<double> {
    std::int64_t total = 0;
    if (utilization) {
      std::int64_t requests = 0;
      for (const Counted& c : samples) {
        total = saturating_add_int64(total, c.milli);
        requests = saturating_add_int64(requests, reading.pods[c.pod].request_milli);
      }
      if (requests == 0) return std::nullopt;
      const auto percent =
          clamp_to_int32(static_cast<double>(saturating_mul_int64(total, 100) / requests));
      return static_cast<double>(percent) / static_cast<double>(target);
    }
    for (const Counted& c : samples) total = saturating_add_int64(total, c.milli);
    std::int64_t usage = total / static_cast<std::int64_t>(samples.size());
    return static_cast<double>(usage) / static_cast<double>(target);
  };

  std::optional<double> first = ratio_of(counted);
  if (!first) return {};
  const double ratio = *first;
  const bool scale_up_with_unready = !g.unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && g.missing.empty()) {
    if (tol.within(ratio)) return {true, current};
    return {true, ceil_to_int32(ratio * static_cast<double>(g.ready_count))};
  }

  // Rebalance: assume the worst for the direction of the change.
  if (!g.missing.empty()) {
    for (std::size_t i : g.missing) {
      if (ratio < 1.0) {
        // Scaling down: a missing pod is taken to use its whole request (or the target when that
        // is above 100%) — or, for plain values, exactly the target.
        std::int64_t assumed = utilization
                                   ? saturating_mul_int64(reading.pods[i].request_milli,
                                                          std::max<std::int64_t>(100, target)) /
                                         100
                                   : target;
        counted.push_back({i, assumed});
      } else if (ratio > 1.0) {
        counted.push_back({i, 0});  // scaling up: a missing pod is taken to use nothing
      }
    }
  }
  if (scale_up_with_unready) {
    for (std::size_t i : g.unready) counted.push_back({i, 0});
  }
  std::optional<double> second = ratio_of(counted);
  if (!second) return {};
  const double new_ratio = *second;
  if (tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) ||
      (ratio > 1.0 && new_ratio < 1.0)) {
    return {true, current};  // too small a change, or the direction flipped
  }
  std::int32_t proposal = ceil_to_int32(new_ratio * static_cast<double>(counted.size()));
  if ((new_ratio < 1.0 && proposal > current) || (new_ratio > 1.0 && proposal < current)) {
    return {true, current};
  }
  return {true, proposal};
}

std::int32_t HpaController::normalize_legacy(SimTime now, std::int32_t current,
                                             std::int32_t desired, HpaReason& reason) {
  // stabilizeRecommendation: the maximum over the downscale window (entries at the cutoff count).
  const SimTime cutoff = now - settings_.downscale_stabilization;
  std::int32_t stabilized = desired;
  std::optional<std::size_t> old;
  for (std::size_t i = 0; i < recommendations_.size(); ++i) {
    if (recommendations_[i].at < cutoff) {
      old = i;
    } else {
      stabilized = std::max(stabilized, recommendations_[i].replicas);
    }
  }
  if (old) {
    recommendations_[*old] = {desired, now};
  } else {
    recommendations_.push_back({desired, now});
  }

  // convertDesiredReplicasWithRules.
  auto scale_up_limit = static_cast<std::int32_t>(
      std::max(kHpaLegacyScaleUpFactor * static_cast<double>(current), kHpaLegacyScaleUpMinimum));
  std::int32_t max_allowed = spec_.max_replicas;
  HpaReason over = HpaReason::TooManyReplicas;
  if (spec_.max_replicas > scale_up_limit) {
    max_allowed = scale_up_limit;
    over = HpaReason::ScaleUpLimit;
  }
  if (stabilized < spec_.min_replicas) {
    reason = HpaReason::TooFewReplicas;
    return spec_.min_replicas;
  }
  if (stabilized > max_allowed) {
    reason = over;
    return max_allowed;
  }
  reason = HpaReason::DesiredWithinRange;
  return stabilized;
}

std::int32_t HpaController::normalize_with_behavior(SimTime now, std::int32_t current,
                                                    std::int32_t desired, HpaReason& reason) {
  // stabilizeRecommendationWithBehaviors: entries strictly newer than each cutoff count.
  const SimTime up_cutoff = now - seconds(scale_up_.stabilization_window_seconds);
  const SimTime down_cutoff = now - seconds(scale_down_.stabilization_window_seconds);
  std::int32_t up_rec = desired;
  std::int32_t down_rec = desired;
  std::optional<std::size_t> old;
  for (std::size_t i = 0; i < recommendations_.size(); ++i) {
    const Recommendation& r = recommendations_[i];
    if (r.at > up_cutoff) up_rec = std::min(up_rec, r.replicas);
    if (r.at > down_cutoff) down_rec = std::max(down_rec, r.replicas);
    if (r.at < up_cutoff && r.at < down_cutoff) old = i;
  }
  std::int32_t stabilized = current;
  if (stabilized < up_rec) stabilized = up_rec;
  if (stabilized > down_rec) stabilized = down_rec;
  if (old) {
    recommendations_[*old] = {desired, now};
  } else {
    recommendations_.push_back({desired, now});
  }

  // convertDesiredReplicasWithBehaviorRate.
  reason = HpaReason::DesiredWithinRange;
  if (stabilized > current) {
    std::int32_t limit = std::max(scale_up_limit(now, current), current);
    std::int32_t max_allowed = spec_.max_replicas;
    HpaReason over = HpaReason::TooManyReplicas;
    if (max_allowed > limit) {
      max_allowed = limit;
      over = HpaReason::ScaleUpLimit;
    }
    if (stabilized > max_allowed) {
      reason = over;
      return max_allowed;
    }
  } else if (stabilized < current) {
    std::int32_t limit = std::min(scale_down_limit(now, current), current);
    std::int32_t min_allowed = spec_.min_replicas;
    HpaReason under = HpaReason::TooFewReplicas;
    if (min_allowed < limit) {
      min_allowed = limit;
      under = HpaReason::ScaleDownLimit;
    }
    if (stabilized < min_allowed) {
      reason = under;
      return min_allowed;
    }
  }
  return stabilized;
}

namespace {

// getReplicasChangePerPeriod: events strictly newer than now − period.
std::int32_t change_in_period(SimTime now, std::int32_t period_seconds, const auto& events) {
  const SimTime cutoff = now - seconds(period_seconds);
  std::int32_t sum = 0;
  for (const auto& e : events)
    if (e.at > cutoff) sum += e.change;
  return sum;
}

}  // namespace

std::int32_t HpaController::scale_up_limit(SimTime now, std::int32_t current) const {
  // calculateScaleUpLimitWithScalingRules.
  if (scale_up_.select_policy == SelectPolicy::Disabled) return current;
  const bool pick_min = scale_up_.select_policy == SelectPolicy::Min;
  std::int32_t result = pick_min ? kMaxInt32 : kMinInt32;
  for (const ScalingPolicy& p : scale_up_.policies) {
    std::int32_t start = current - change_in_period(now, p.period_seconds, scale_up_events_) +
                         change_in_period(now, p.period_seconds, scale_down_events_);
    std::int32_t proposed = 0;
    if (p.type == ScalingPolicyType::Pods) {
      proposed = clamp_to_int32(static_cast<double>(start) + p.value);
    } else {
      // Rounded up so that a small percentage still adds a pod.
      proposed = clamp_to_int32(
          std::ceil(static_cast<double>(start) * (1 + static_cast<double>(p.value) / 100)));
    }
    result = pick_min ? std::min(result, proposed) : std::max(result, proposed);
  }
  return result;
}

std::int32_t HpaController::scale_down_limit(SimTime now, std::int32_t current) const {
  // calculateScaleDownLimitWithBehaviors.
  if (scale_down_.select_policy == SelectPolicy::Disabled) return current;
  const bool pick_min_change = scale_down_.select_policy == SelectPolicy::Min;
  std::int32_t result = pick_min_change ? kMinInt32 : kMaxInt32;
  for (const ScalingPolicy& p : scale_down_.policies) {
    std::int32_t start = current - change_in_period(now, p.period_seconds, scale_up_events_) +
                         change_in_period(now, p.period_seconds, scale_down_events_);
    std::int32_t proposed = 0;
    if (p.type == ScalingPolicyType::Pods) {
      proposed = clamp_to_int32(static_cast<double>(start) - p.value);
    } else {
      proposed = clamp_to_int32(
          std::trunc(static_cast<double>(start) * (1 - static_cast<double>(p.value) / 100)));
    }
    result = pick_min_change ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

void HpaController::store_scale_event(SimTime now, std::int32_t previous, std::int32_t desired) {
  if (!spec_.behavior) return;  // the legacy path never reads events
  const bool up = desired > previous;
  const ResolvedScalingRules& rules = up ? scale_up_ : scale_down_;
  std::vector<ScaleEvent>& events = up ? scale_up_events_ : scale_down_events_;
  std::int32_t longest = 0;
  for (const ScalingPolicy& p : rules.policies) longest = std::max(longest, p.period_seconds);
  // markScaleEventsOutdated, then reuse the last outdated slot.
  const SimTime cutoff = now - seconds(longest);
  std::optional<std::size_t> slot;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].at < cutoff) events[i].outdated = true;
    if (events[i].outdated) slot = i;
  }
  ScaleEvent e{
      .change = up ? desired - previous : previous - desired, .at = now, .outdated = false};
  if (slot) {
    events[*slot] = e;
  } else {
    events.push_back(e);
  }
}

}  // namespace fleetsim
