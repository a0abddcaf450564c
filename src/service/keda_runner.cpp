#include "fleetsim/service/keda_runner.hpp"

#include <algorithm>
#include <utility>

namespace fleetsim {

KedaRunner::KedaRunner(Simulation& sim, WorkloadController& workloads, const AutoscalerView& view,
                       const MetricsStore& store, const ScaledObjectSpec& spec, WorkloadId target)
    : sim_(sim),
      workloads_(workloads),
      view_(view),
      store_(store),
      keda_(spec, sim.now()),
      target_(target) {
  for (const KedaTrigger& t : spec.triggers) {
    // The scenario loader already parsed each query, so this cannot fail here.
    if (t.type == KedaTriggerType::Prometheus) {
      queries_.emplace_back(PromQuery::parse(t.query));
    } else {
      queries_.emplace_back(std::nullopt);
    }
  }
}

SimDuration KedaRunner::longest_range() const {
  SimDuration out{0};
  for (const auto& q : queries_)
    if (q) out = std::max(out, q->longest_range());
  return out;
}

std::optional<std::vector<std::string>> KedaRunner::metrics_read() const {
  std::vector<std::string> out;
  for (const auto& q : queries_) {
    if (!q) continue;
    std::optional<std::vector<std::string>> names = q->metric_names();
    if (!names) return std::nullopt;
    out.insert(out.end(), names->begin(), names->end());
  }
  return out;
}

void KedaRunner::start(SimDuration poll_offset, SimDuration hpa_offset) {
  sim_.every(keda_.spec().polling_interval, first_firing_at_start(sim_.now(), poll_offset),
             Phase::ScalerPolls, *this, static_cast<std::uint64_t>(Tick::Poll));
  sim_.every(kHpaSyncPeriod, first_firing_at_start(sim_.now(), hpa_offset), Phase::Autoscalers,
             *this, static_cast<std::uint64_t>(Tick::HpaSync));
}

KedaInputs KedaRunner::inputs(SimTime now) const {
  KedaInputs in{
      .current_replicas = workloads_.replicas(target_),
      .status_replicas = static_cast<std::int32_t>(workloads_.active_pods(target_).size()),
      .pods = view_.pods(target_),
      .triggers = {}};
  for (std::size_t i = 0; i < queries_.size(); ++i) {
    const KedaTrigger& t = keda_.spec().triggers[i];
    TriggerReading r;
    if (queries_[i]) {
      try {
        r.value = queries_[i]->evaluate(store_, now);
      } catch (const PromQlEvalError&) {
        r.error = true;  // Prometheus answers with an error: the scaler's read fails
      }
    } else {
      r.pods =
          view_.resource_usage(t.type == KedaTriggerType::Cpu ? "cpu" : "memory", target_, now);
    }
    in.triggers.push_back(std::move(r));
  }
  return in;
}

void KedaRunner::on_event(SimTime now, std::uint64_t tag) {
  const KedaInputs in = inputs(now);
  const std::int32_t desired = static_cast<Tick>(tag) == Tick::Poll
                                   ? keda_.poll(now, in).desired
                                   : keda_.sync_hpa(now, in).desired;
  workloads_.scale(target_, desired, ReplicasSource::Keda);
}

}  // namespace fleetsim
