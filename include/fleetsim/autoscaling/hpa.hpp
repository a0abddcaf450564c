// The HPA controller's decision (kube-controller-manager's podautoscaler), pure and clock-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fleetsim/autoscaling/hpa_spec.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// metrics-server's --metric-resolution default: the window a pod's CPU sample covers.
inline constexpr SimDuration kDefaultMetricWindow = seconds(15);
// A start time far enough back that a pod is past every initialization period; the default for
// pods a caller describes only by their readiness.
inline constexpr SimTime kStartedLongAgo = at(-hours(24));

// kube-controller-manager settings the HPA controller reads (defaults: its flags).
struct HpaControllerSettings {
  double tolerance = kHpaTolerance;
  SimDuration downscale_stabilization = kHpaDownscaleStabilization;
  SimDuration cpu_initialization_period = kHpaCpuInitializationPeriod;
  SimDuration initial_readiness_delay = kHpaInitialReadinessDelay;
  // The HPAConfigurableTolerance gate: honour behavior.scaleUp/scaleDown.tolerance.
  bool configurable_tolerance = true;
};

enum class HpaPodPhase { Pending, Running, Succeeded, Failed };
enum class ConditionStatus { True, False, Unknown };

// One pod the scale target's selector matches, as the controller's pod lister sees it.
struct HpaPod {
  HpaPodPhase phase = HpaPodPhase::Running;
  bool deleting = false;  // has a deletionTimestamp
  // The Ready condition: nullopt when the pod has none yet.
  std::optional<ConditionStatus> ready = ConditionStatus::True;
  SimTime ready_transition = kStartedLongAgo;           // the Ready condition's lastTransitionTime
  std::optional<SimTime> start_time = kStartedLongAgo;  // status.startTime
};

// One pod's sample of a Pods or Resource metric.
struct PodMetricValue {
  std::optional<std::int64_t> milli;  // nullopt: no sample for this pod (a "missing" pod)
  // Resource metrics: the pod's request of that resource in milli-units (MilliValue()); 0 means
  // the pod requests none, which makes a Utilization target fail as upstream does.
  std::int64_t request_milli = 0;
  SimTime timestamp{};
  SimDuration window = kDefaultMetricWindow;
};

// What the metrics APIs returned for one entry of spec.metrics.
struct MetricReading {
  bool available = true;             // false: the metrics API call failed
  std::vector<PodMetricValue> pods;  // Pods and Resource: aligned with HpaInputs::pods
  std::int64_t milli = 0;            // Object and External: the value (External: the sum)
};

struct HpaInputs {
  std::int32_t current_replicas = 0;            // the scale subresource's spec.replicas
  std::optional<std::int32_t> status_replicas;  // its status.replicas; nullopt: as current
  std::vector<HpaPod> pods;                     // the pods the selector matches
  std::vector<MetricReading> metrics;           // one per effective metric, in spec order
};

// Why the HPA chose its number, after upstream's conditions and their reasons.
enum class HpaReason {
  ScalingDisabled,     // current replicas 0: the HPA does nothing
  AboveMaxReplicas,    // current above maxReplicas: set to max, metrics not read
  BelowMinReplicas,    // current below minReplicas: set to min, metrics not read
  MetricsFailed,       // every metric failed, or some failed and the rest would scale down
  DesiredWithinRange,  // the (stabilized) recommendation was used as it is
  ScaleUpLimit,        // capped by the scale-up rate (legacy cap or policies)
  ScaleDownLimit,      // held up by the scale-down policies
  TooManyReplicas,     // capped at maxReplicas
  TooFewReplicas,      // raised to minReplicas
};

struct HpaDecision {
  std::int32_t desired = 0;  // equal to current when the HPA does not rescale
  HpaReason reason = HpaReason::DesiredWithinRange;
  // The raw recommendation of the metrics (their maximum) when they were read; -1 otherwise.
  std::int32_t metric_recommendation = -1;
};

// One HPA object's controller state. decide() is one reconcile: it reads the inputs, keeps the
// recommendation and scale-event histories upstream keeps per HPA, and returns the replica count
// to write. A write is assumed to succeed (the simulated API server accepts every scale update).
class HpaController {
 public:
  explicit HpaController(HorizontalPodAutoscalerSpec spec, HpaControllerSettings settings = {});

  HpaDecision decide(SimTime now, const HpaInputs& inputs);

  // Whether a reconcile at `current_replicas` reads the metrics (it does not at 0, above max or
  // below min); lets a metrics adapter skip work, and KEDA's fallback count only real reads.
  bool reads_metrics(std::int32_t current_replicas) const;

  const HorizontalPodAutoscalerSpec& spec() const { return spec_; }
  const std::vector<MetricSpec>& metrics() const { return metrics_; }

 private:
  struct Recommendation {
    std::int32_t replicas;
    SimTime at;
  };
  struct ScaleEvent {
    std::int32_t change;  // absolute value
    SimTime at;
    bool outdated = false;
  };
  struct Tolerances {
    double down;
    double up;
    bool within(double ratio) const { return (1.0 - down) <= ratio && ratio <= (1.0 + up); }
  };
  struct Proposal {
    bool valid = false;
    std::int32_t replicas = 0;
  };

  // A sample the calculation counts, by pod index, with a value the rebalance may replace.
  struct Counted {
    std::size_t pod;
    std::int64_t milli;
  };
  // upstream's groupPods, by index into HpaInputs::pods, with the samples of the ready pods.
  struct PodGroups {
    std::int32_t ready_count = 0;
    std::vector<std::size_t> unready;
    std::vector<std::size_t> missing;
    std::vector<Counted> counted;
  };

  Proposal compute_metric(SimTime now, const MetricSpec& metric, const MetricReading& reading,
                          const HpaInputs& inputs);
  void group_pods(const std::vector<HpaPod>& pods, const std::vector<PodMetricValue>& samples,
                  bool cpu, SimTime now);
  std::int32_t normalize_legacy(SimTime now, std::int32_t current, std::int32_t desired,
                                HpaReason& reason);
  std::int32_t normalize_with_behavior(SimTime now, std::int32_t current, std::int32_t desired,
                                       HpaReason& reason);
  std::int32_t scale_up_limit(SimTime now, std::int32_t current) const;
  std::int32_t scale_down_limit(SimTime now, std::int32_t current) const;
  void store_scale_event(SimTime now, std::int32_t previous, std::int32_t desired);

  HorizontalPodAutoscalerSpec spec_;
  HpaControllerSettings settings_;
  std::vector<MetricSpec> metrics_;
  ResolvedScalingRules scale_up_;
  ResolvedScalingRules scale_down_;
  Tolerances tolerances_;
  std::vector<Recommendation> recommendations_;  // raw (unstabilized) recommendations
  std::vector<ScaleEvent> scale_up_events_;
  std::vector<ScaleEvent> scale_down_events_;
  PodGroups groups_;  // compute_metric's, kept so that a sync allocates nothing once warm
};

std::string_view to_string(HpaReason reason);

}  // namespace fleetsim
