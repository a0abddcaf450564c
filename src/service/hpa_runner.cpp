#include "fleetsim/service/hpa_runner.hpp"

namespace fleetsim {

HpaRunner::HpaRunner(Simulation& sim, WorkloadController& workloads, const AutoscalerView& view,
                     const HorizontalPodAutoscalerSpec& spec, WorkloadId target)
    : sim_(sim), workloads_(workloads), view_(view), hpa_(spec), target_(target) {}

void HpaRunner::start(SimDuration offset) {
  sim_.every(kHpaSyncPeriod, first_firing_at_start(sim_.now(), offset), Phase::Autoscalers, *this);
}

void HpaRunner::on_event(SimTime now, std::uint64_t) {
  const std::int32_t current = workloads_.replicas(target_);
  HpaInputs in{.current_replicas = current,
               .status_replicas = static_cast<std::int32_t>(workloads_.active_pods(target_).size()),
               .pods = view_.pods(target_),
               .metrics = {}};
  if (hpa_.reads_metrics(current))
    for (const MetricSpec& m : hpa_.metrics()) in.metrics.push_back(view_.read(m, target_, now));
  else
    in.metrics.resize(hpa_.metrics().size());
  const HpaDecision d = hpa_.decide(now, in);
  workloads_.scale(target_, d.desired, ReplicasSource::Hpa);
}

}  // namespace fleetsim
