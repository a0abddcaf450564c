// One KEDA ScaledObject inside a run: its scalers poll the metrics store (PromQL triggers) or
// the AutoscalerView (cpu and memory triggers), and it writes the target Deployment's replicas.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fleetsim/autoscaling/keda.hpp"
#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/autoscaling/promql.hpp"
#include "fleetsim/engine/phase_offsets.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/service/autoscaler_view.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

// KEDA polls every pollingInterval (Phase::ScalerPolls) from t = poll_offset, its own loop's
// phase, and the HPA it owns syncs every 15 s (Phase::Autoscalers) from t = hpa_offset, the
// controller-manager's HPA loop's phase; both 0 in lockstep.
class KedaRunner final : private EventHandler {
 public:
  KedaRunner(Simulation& sim, WorkloadController& workloads, const AutoscalerView& view,
             const MetricsStore& store, const ScaledObjectSpec& spec, WorkloadId target);
  void start(SimDuration poll_offset = SimDuration{0}, SimDuration hpa_offset = SimDuration{0});
  // The longest PromQL range window of its triggers (for the store's retention).
  SimDuration longest_range() const;
  // The metrics its Prometheus triggers read; nullopt when one may read any (PromQuery).
  std::optional<std::vector<std::string>> metrics_read() const;

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
