// KEDA's ScaledObject controller (0↔1 activation, cooldown, fallback) and the HPA it owns (1↔N).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/autoscaling/keda_spec.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// What a trigger's scaler returns at one moment.
struct TriggerReading {
  std::optional<double> value;       // prometheus: the query result; nullopt: an empty result
  bool error = false;                // prometheus: the query failed (server down, bad response)
  std::vector<PodMetricValue> pods;  // cpu and memory: per-pod samples, aligned with pods below
};

struct KedaInputs {
  std::int32_t current_replicas = 0;            // the scale target's spec.replicas
  std::optional<std::int32_t> status_replicas;  // its status.replicas; nullopt: as current
  std::vector<HpaPod> pods;                     // the pods of the scale target
  std::vector<TriggerReading> triggers;         // one per trigger, in spec order
};

// What a poll did (RequestScale's branches).
enum class KedaAction {
  None,          // nothing to write (the HPA handles 1↔N)
  Activated,     // scaled from 0 (or idle) to max(minReplicaCount, 1)
  Deactivated,   // scaled to idleReplicaCount, or minReplicaCount (0 by default), after cooldown
  CoolingDown,   // inactive, but the cooldown has not passed yet
  RaisedToMin,   // inactive below minReplicaCount (no idle count): set to min
  TriggerError,  // a scaler failed: no activation and no scale-in
};

struct KedaPollResult {
  std::int32_t desired = 0;  // equal to current when KEDA writes nothing
  bool active = false;
  bool error = false;
  KedaAction action = KedaAction::None;
};

class ScaledObjectController {
 public:
  // `created` is the ScaledObject's creationTimestamp (initialCooldownPeriod counts from it).
  ScaledObjectController(ScaledObjectSpec spec, SimTime created,
                         HpaControllerSettings settings = {});

  // One pass of KEDA's scale loop (checkScalers, then the executor's RequestScale); runs every
  // pollingInterval.
  KedaPollResult poll(SimTime now, const KedaInputs& inputs);

  // One sync of the HPA KEDA created, reading each External metric through KEDA's metrics
  // adapter, which queries the scaler live and applies the fallback.
  HpaDecision sync_hpa(SimTime now, const KedaInputs& inputs);

  // Whether some trigger's failure count is above fallback.failureThreshold.
  bool fallback_active() const;

  const ScaledObjectSpec& spec() const { return spec_; }
  const HorizontalPodAutoscalerSpec& hpa_spec() const { return hpa_.spec(); }
  std::optional<SimTime> last_active_time() const { return last_active_; }

 private:
  // A prometheus trigger's value as the scaler reports it: nullopt is a scaler error.
  std::optional<double> scaler_value(const KedaTrigger& trigger,
                                     const TriggerReading& reading) const;
  // GetMetricsWithFallback for trigger `index`: the scaler's value, or the synthetic value of
  // doFallback (setting falling_back) once failures pass the threshold, or unavailable.
  MetricReading with_fallback(std::size_t index, std::optional<double> value,
                              const KedaInputs& inputs, bool& falling_back);

  ScaledObjectSpec spec_;
  SimTime created_;
  std::optional<SimTime> last_active_;
  std::vector<std::int32_t> failures_;  // status.health[metric].numberOfFailures, per trigger
  HpaController hpa_;
};

std::string_view to_string(KedaAction action);

}  // namespace fleetsim
