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
  inputs_.current_replicas = current;
  inputs_.status_replicas = static_cast<std::int32_t>(workloads_.active_pods(target_).size());
  view_.pods(target_, inputs_.pods);
  const std::vector<MetricSpec>& metrics = hpa_.metrics();
  inputs_.metrics.resize(metrics.size());
  series_.resize(metrics.size());
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (hpa_.reads_metrics(current))
      view_.read(metrics[i], target_, now, series_[i], inputs_.metrics[i]);
    else
      inputs_.metrics[i] = MetricReading{};
  }
  const HpaDecision d = hpa_.decide(now, inputs_);
  workloads_.scale(target_, d.desired, ReplicasSource::Hpa);
}

}  // namespace fleetsim
