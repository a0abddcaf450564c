// Autoscaler pitfalls: an averaging KEDA query, and more replicas than the pools can hold.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "fleetsim/autoscaling/metric_names.hpp"
#include "fleetsim/autoscaling/promql.hpp"
#include "fleetsim/service/exported_metrics.hpp"
#include "lint_view.hpp"

namespace fleetsim::lint {

namespace {

// KEDA's prometheus scaler reports the query's value as an External metric; under an
// AverageValue target the HPA wants ceil(value ÷ threshold) replicas, as if the value were the
// total over all pods. An avg(...) does not grow with the pods, so neither do the replicas.
void keda_average_query(const LintView& view, std::vector<LintFinding>& out) {
  for (const ScaledObjectSpec& so : view.config.scaled_objects) {
    for (const KedaTrigger& t : so.triggers) {
      if (t.type != KedaTriggerType::Prometheus ||
          t.metric_type != MetricTargetType::AverageValue || t.threshold <= 0)
        continue;
      const PromQuery query = PromQuery::parse(t.query);
      const PromNode& root = query.nodes()[static_cast<std::size_t>(query.root())];
      if (root.kind != PromNodeKind::Aggregate || root.aggregate != AggregateOp::Avg) continue;
      bool gpu_util = false;
      for (const std::string& name : selected_metric_names(query)) {
        auto alias = view.config.metric_aliases.find(name);
        gpu_util |= name == kGpuUtilMetric ||
                    (alias != view.config.metric_aliases.end() && alias->second == kGpuUtilMetric);
      }
      std::string cap =
          gpu_util ? fmt::format(
                         "; GPU utilization is at most 100, so at most ceil(100 ÷ {}) = {} "
                         "replicas, whatever the load",
                         t.threshold, std::ceil(100.0 / t.threshold))
                   : ", whatever the load";
      out.push_back(finding(
          "keda-average-query", t.query_where,
          fmt::format("ScaledObject {}/{}", so.namespace_name, so.name),
          fmt::format("the query averages over pods, but an AverageValue target (the default) "
                      "treats its value as the total of all pods: the Deployment gets "
                      "ceil(average ÷ {}) replicas{}",
                      t.threshold, cap),
          "sum the query (sum(...)) so it grows with the load, or set metricType: Value to scale "
          "by average ÷ threshold"));
    }
  }
}

// Each accelerator resource the pod asks for.
std::vector<ResourceIndex> accelerators(const Resources& requests) {
  std::vector<ResourceIndex> out;
  for (ResourceIndex r : {resource::kNvidiaGpu, resource::kAmdGpu, resource::kNeuron,
                          resource::kNeuronCore, resource::kGaudi})
    if (requests[r] > 0) out.push_back(r);
  return out;
}

void replicas_beyond_pool_limits(const LintView& view, std::string_view kind, std::string_view ns,
                                 std::string_view name, const CrossVersionObjectReference& target,
                                 std::int32_t max_replicas, const SourceLocation& where,
                                 std::vector<LintFinding>& out) {
  const std::optional<std::size_t> index = view.deployment(ns, target.name);
  if (!index) return;
  const Workload* deployment = view.workloads[*index];
  const std::vector<std::uint32_t>& pools = view.lands_on[*index];
  if (pools.empty()) return;  // validate says no pool hosts it
  for (ResourceIndex r : accelerators(deployment->pod.spec.requests)) {
    std::int64_t limit = 0;
    for (std::uint32_t p : pools) {
      const NodePoolLimits& limits = view.pools[p].limits;
      if (!limits.resources || limits.set_mask[r] == 0) return;  // unlimited
      limit += (*limits.resources)[r];
    }
    const std::int64_t per_pod = deployment->pod.spec.requests[r];
    const std::int64_t wanted = static_cast<std::int64_t>(max_replicas) * per_pod;
    if (wanted <= limit) continue;
    const std::string& resource = view.config.resources.name(r);
    out.push_back(finding(
        "replicas-beyond-pool-limits", where, fmt::format("{} {}/{}", kind, ns, name),
        fmt::format("maxReplicas {} × {} {} per pod is {}, but the NodePools its pods can land on "
                    "are limited to {} in all: replicas past {} stay Pending (fewer, when nodes "
                    "hold GPUs no pod uses)",
                    max_replicas, per_pod, resource, wanted, limit, limit / per_pod),
        fmt::format("raise the NodePools' limits.{} to at least {}, or lower maxReplicas to {}",
                    resource, wanted, limit / per_pod)));
  }
}

}  // namespace

void autoscaling_rules(const LintView& view, std::vector<LintFinding>& out) {
  keda_average_query(view, out);
  for (const HorizontalPodAutoscalerSpec& hpa : view.config.hpas)
    replicas_beyond_pool_limits(view, "HorizontalPodAutoscaler", hpa.namespace_name, hpa.name,
                                hpa.scale_target, hpa.max_replicas, hpa.where, out);
  for (const ScaledObjectSpec& so : view.config.scaled_objects)
    replicas_beyond_pool_limits(view, "ScaledObject", so.namespace_name, so.name, so.scale_target,
                                so.max_replica_count, so.where, out);
}

}  // namespace fleetsim::lint
