// One HorizontalPodAutoscaler inside a run: it syncs on its own clock, reads the target
// Deployment's pods and metrics through the AutoscalerView, and writes the Deployment's replicas.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/autoscaling/hpa.hpp"
#include "fleetsim/engine/phase_offsets.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/service/autoscaler_view.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

// Syncs every 15 s (kube-controller-manager's --horizontal-pod-autoscaler-sync-period) from
// t = offset, the phase of the controller-manager's HPA loop (0: in lockstep with the scrape).
class HpaRunner final : private EventHandler {
 public:
  HpaRunner(Simulation& sim, WorkloadController& workloads, const AutoscalerView& view,
            const HorizontalPodAutoscalerSpec& spec, WorkloadId target);
  void start(SimDuration offset = SimDuration{0});

 private:
  void on_event(SimTime now, std::uint64_t tag) override;

  Simulation& sim_;
  WorkloadController& workloads_;
  const AutoscalerView& view_;
  HpaController hpa_;
  WorkloadId target_;
  HpaInputs inputs_;                    // refilled at each sync, its buffers kept
  std::vector<PodSeriesCache> series_;  // one per metric
};

}  // namespace fleetsim
