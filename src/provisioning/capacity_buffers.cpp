#include "fleetsim/provisioning/capacity_buffers.hpp"

#include <fmt/format.h>

namespace fleetsim {

CapacityBufferController::CapacityBufferController(Simulation& sim,
                                                   const WorkloadController& workloads,
                                                   std::vector<CapacityBuffer> buffers,
                                                   std::function<void()> trigger, BufferRules rules)
    : sim_(sim), workloads_(workloads), trigger_(std::move(trigger)), rules_(rules) {
  entries_.reserve(buffers.size());
  for (CapacityBuffer& b : buffers) entries_.push_back(Entry{.buffer = std::move(b)});
}

void CapacityBufferController::start(SimTime first) {
  sim_.every(kRequeue, first, Phase::Provisioning, *this);
}

void CapacityBufferController::on_event(SimTime now, std::uint64_t) { reconcile(now); }

void CapacityBufferController::reconcile(SimTime now) {
  bool changed = false;
  bool ready_any = false;
  for (Entry& e : entries_) {
    const CapacityBuffer& b = e.buffer;
    const PodTemplate* tpl = nullptr;
    std::int32_t replicas = 0;
    // resolveAndUpdateStatus: a scalableRef naming no Deployment (yet) leaves the buffer
    // ReadyForProvisioning=False (ScalableRefNotFound) and drops its virtual pods.
    if (b.scalable_ref) {
      if (const std::optional<WorkloadId> id =
              workloads_.find_deployment(b.namespace_name, b.scalable_ref->name)) {
        tpl = &workloads_.pod_template(*id);
        replicas = buffer_replicas(b, tpl->spec.requests, workloads_.replicas(*id));
        if (rules_ == BufferRules::ClusterAutoscaler && b.limits &&
            !buffer_limit_replicas(*b.limits, tpl->spec.requests))
          replicas = 0;  // "resources in configured limits not found in the pod template"
      }
    }
    if (rules_ == BufferRules::ClusterAutoscaler && b.provisioning_strategy &&
        *b.provisioning_strategy != kActiveCapacityStrategy)
      replicas = 0;  // filterBuffersProvStrategy
    // isBufferReadyForProvisioning: ready and status.replicas > 0.
    if (replicas <= 0) tpl = nullptr;
    ready_any = ready_any || tpl != nullptr;
    if (tpl == e.pod_template && replicas == e.replicas) continue;
    changed = true;
    e.pod_template = tpl;
    e.replicas = replicas;
    e.built = now;
    const std::size_t count = tpl != nullptr ? static_cast<std::size_t>(replicas) : 0;
    e.uids.resize(count);
    for (std::size_t i = 0; i < count; ++i)
      e.uids[i] = fmt::format("capacity-buffer-{}-{}-{}", b.namespace_name, b.name, i + 1);
  }
  if (changed) {
    ++generation_;
    pods_.clear();
    for (const Entry& e : entries_) {
      if (e.pod_template == nullptr) continue;
      for (const std::string& uid : e.uids)
        pods_.push_back(PendingPod{.spec = &e.pod_template->spec,
                                   .labels = &e.pod_template->labels,
                                   .namespace_name = e.buffer.namespace_name,
                                   .created_us = e.built.time_since_epoch().count(),
                                   .uid = uid});
    }
  }
  // The controller triggers the provisioner on every successful reconcile, not only on changes.
  if (ready_any && trigger_) trigger_();
}

}  // namespace fleetsim
