// NodePool pitfalls: multi-GPU types for 1-GPU pods, limits below one instance, Jobs on spot.
#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/core/quantity.hpp"
#include "lint_view.hpp"

namespace fleetsim::lint {

namespace {

int accelerator_count(const InstanceType& t) { return std::max(t.gpu_count, t.accelerator_count); }

// Karpenter launches, per batch, the cheapest type that holds all of it: two pending 1-GPU pods
// on a pool with 1- and 4-GPU types get one 4-GPU node (g5.12xlarge), two GPUs idle.
void multi_gpu_types_for_one_gpu_pods(const LintView& view, std::vector<LintFinding>& out) {
  const auto& types = view.context->catalog().types();
  for (std::uint32_t p = 0; p < view.pools.size(); ++p) {
    std::vector<std::string> pods;
    std::string largest;
    int most = 1;
    for (std::size_t w = 0; w < view.workloads.size(); ++w) {
      const Workload& workload = *view.workloads[w];
      if (view.from_trace[w] || workload.pod.spec.requests.gpus() != 1 ||
          std::find(view.lands_on[w].begin(), view.lands_on[w].end(), p) == view.lands_on[w].end())
        continue;
      bool multi = false;
      view.context->types_for(workload.pod.spec, p).for_each([&](std::size_t t) {
        const int n = accelerator_count(types[t]);
        multi |= n > 1;
        if (n > most) {
          most = n;
          largest = types[t].name;
        }
      });
      if (multi) pods.push_back(workload_subject(workload));
    }
    if (pods.empty()) continue;
    out.push_back(finding(
        "multi-gpu-types-for-one-gpu-pods", view.pools[p].where,
        fmt::format("NodePool {}", view.pools[p].name),
        fmt::format("it allows multi-GPU types (up to {} GPUs, {}) for 1-GPU pods of {}: when "
                    "several are pending in one batch, Karpenter launches one multi-GPU node "
                    "for them and pays for its idle GPUs until consolidation replaces it",
                    most, largest, first_names(pods)),
        "add {key: karpenter.k8s.aws/instance-gpu-count, operator: In, values: [\"1\"]} to the "
        "NodePool's requirements (or to the pods' node affinity)"));
  }
}

// Limits count capacity: a type whose capacity alone is above a limit is never launched.
void limit_below_instance(const LintView& view, std::vector<LintFinding>& out) {
  const auto& types = view.context->catalog().types();
  for (std::uint32_t p = 0; p < view.pools.size(); ++p) {
    const NodePoolLimits& limits = view.pools[p].limits;
    if (!limits.resources) continue;
    const PoolTemplate& tpl = view.context->pools()[p];
    for (ResourceIndex r = 0; r < resource::kMaxResources; ++r) {
      if (limits.set_mask[r] == 0) continue;
      const std::int64_t limit = (*limits.resources)[r];
      std::vector<std::string> over;
      std::int64_t largest = 0;
      std::size_t allowed = 0;
      tpl.types.for_each([&](std::size_t t) {
        ++allowed;
        const std::int64_t capacity = types[t].capacity[r];
        if (capacity <= limit) return;
        over.push_back(types[t].name);
        largest = std::max(largest, capacity);
      });
      if (over.empty()) continue;
      const std::string& name = view.config.resources.name(r);
      const bool bytes = is_byte_resource(name);
      auto show = [&](std::int64_t v) {
        return bytes                 ? format_bytes(v)
               : r == resource::kCpu ? format_millicores(v)
                                     : std::to_string(v);
      };
      out.push_back(finding(
          "limit-below-instance", view.pools[p].where,
          fmt::format("NodePool {}", view.pools[p].name),
          fmt::format("limits.{} is {}, less than one node of {} of its {} types ({}): Karpenter "
                      "never launches {}",
                      name, show(limit), over.size(), allowed, first_names(over),
                      over.size() == allowed ? "any node of the pool" : "those"),
          fmt::format("raise limits.{} to at least {}, or keep those types out of the pool", name,
                      show(largest))));
    }
  }
}

// An interruption ends a Job's pod and the work it had not checkpointed; on a spot-only pool
// nothing else can run it. A Job that checkpoints loses little, and is left alone.
void spot_only_jobs(const LintView& view, std::vector<LintFinding>& out) {
  constexpr std::uint8_t kSpot = capacity_bit(CapacityType::Spot);
  for (std::size_t w = 0; w < view.workloads.size(); ++w) {
    const Workload& job = *view.workloads[w];
    if (job.kind != WorkloadKind::Job || view.lands_on[w].empty()) continue;
    if (job.checkpointing.interval) continue;
    bool spot_only = true;
    for (std::uint32_t p : view.lands_on[w])
      spot_only &= view.context->pools()[p].capacity_mask == kSpot;
    if (!spot_only) continue;
    out.push_back(finding(
        "spot-only-jobs", job.where, workload_subject(job),
        "its pods can run only on spot capacity and it does not checkpoint: each interruption "
        "ends a pod and all the work it had done, and when spot is short the Job waits",
        "allow on-demand in the NodePool's karpenter.sh/capacity-type (Karpenter prefers spot "
        "while it is offered), or add an on-demand NodePool of lower weight; if the job saves "
        "checkpoints, say how often with the fleetsim.io/checkpoint-interval annotation"));
  }
}

}  // namespace

void nodepool_rules(const LintView& view, std::vector<LintFinding>& out) {
  multi_gpu_types_for_one_gpu_pods(view, out);
  limit_below_instance(view, out);
  spot_only_jobs(view, out);
}

}  // namespace fleetsim::lint
