// Autoscaler pitfalls: an averaging KEDA query, a GPU threshold past its gauge's range, and more
// replicas than the pools can hold.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "fleetsim/autoscaling/metric_names.hpp"
#include "fleetsim/autoscaling/promql.hpp"
#include "fleetsim/service/exported_metrics.hpp"
#include "lint_view.hpp"

namespace fleetsim::lint {

namespace {

// The DCGM gauge a query reads, if all the metrics it selects are one: GPU_UTIL is a percentage,
// GR_ENGINE_ACTIVE a ratio (dcgm-exporter's default counters).
struct GpuGauge {
  std::string_view name;
  std::string_view noun;  // for messages
  double max = 0;
};
std::optional<GpuGauge> gpu_gauge(const LintView& view, const PromQuery& query) {
  std::optional<GpuGauge> gauge;
  for (const std::string& name : selected_metric_names(query)) {
    const auto alias = view.config.metric_aliases.find(name);
    const std::string_view metric =
        alias != view.config.metric_aliases.end() ? std::string_view(alias->second) : name;
    GpuGauge g;
    if (metric == kGpuUtilMetric)
      g = {kGpuUtilMetric, "GPU utilization", 100};
    else if (metric == kGrEngineActiveMetric)
      g = {kGrEngineActiveMetric, "the graphics engine's active share", 1};
    else
      return std::nullopt;
    if (gauge && gauge->name != g.name) return std::nullopt;
    gauge = g;
  }
  return gauge;
}

bool prometheus_trigger(const KedaTrigger& t) {
  return t.type == KedaTriggerType::Prometheus && t.threshold > 0;
}

std::string scaled_object_subject(const ScaledObjectSpec& so) {
  return fmt::format("ScaledObject {}/{}", so.namespace_name, so.name);
}

// KEDA's prometheus scaler reports the query's value as an External metric; under an
// AverageValue target the HPA wants ceil(value ÷ threshold) replicas, as if the value were the
// total over all pods. An avg(...) does not grow with the pods, so neither do the replicas.
void keda_average_query(const LintView& view, std::vector<LintFinding>& out) {
  for (const ScaledObjectSpec& so : view.config.scaled_objects) {
    for (const KedaTrigger& t : so.triggers) {
      if (!prometheus_trigger(t) || t.metric_type != MetricTargetType::AverageValue) continue;
      const PromQuery query = PromQuery::parse(t.query);
      const PromNode& root = query.nodes()[static_cast<std::size_t>(query.root())];
      if (root.kind != PromNodeKind::Aggregate || root.aggregate != AggregateOp::Avg) continue;
      const std::optional<GpuGauge> gauge = gpu_gauge(view, query);
      std::string cap = gauge ? fmt::format(
                                    "; {} is at most {}, so at most ceil({} ÷ {}) = {} replicas, "
                                    "whatever the load",
                                    gauge->noun, gauge->max, gauge->max, t.threshold,
                                    std::ceil(gauge->max / t.threshold))
                              : ", whatever the load";
      out.push_back(finding(
          "keda-average-query", t.query_where, scaled_object_subject(so),
          fmt::format("the query averages over pods, but an AverageValue target (the default) "
                      "treats its value as the total of all pods: the Deployment gets "
                      "ceil(average ÷ {}) replicas{}",
                      t.threshold, cap),
          "sum the query (sum(...)) so it grows with the load, or set metricType: Value to scale "
          "by average ÷ threshold"));
    }
  }
}

// A threshold past the most a GPU gauge reads, per GPU: 80 copied from a GPU_UTIL guide onto
// GR_ENGINE_ACTIVE (the one MIG instances export). Under AverageValue the replicas become
// ceil(total ÷ threshold), fewer than the pods summed; under Value a per-pod reading (a bare
// selector, avg, max, min) stays below the threshold. Either way they never scale up.
void gpu_threshold_beyond_range(const LintView& view, std::vector<LintFinding>& out) {
  for (const ScaledObjectSpec& so : view.config.scaled_objects) {
    for (const KedaTrigger& t : so.triggers) {
      if (!prometheus_trigger(t)) continue;
      const PromQuery query = PromQuery::parse(t.query);
      const std::optional<GpuGauge> gauge = gpu_gauge(view, query);
      if (!gauge || t.threshold <= gauge->max) continue;
      // Only the gauge's own values, unscaled: a selector, or sum, avg, max or min of one.
      const auto node = [&](int i) -> const PromNode& {
        return query.nodes()[static_cast<std::size_t>(i)];
      };
      const PromNode& root = node(query.root());
      const bool aggregate = root.kind == PromNodeKind::Aggregate &&
                             root.aggregate != AggregateOp::Count &&
                             node(root.lhs).kind == PromNodeKind::Selector;
      if (root.kind != PromNodeKind::Selector && !aggregate) continue;
      const bool per_pod = !aggregate || root.aggregate != AggregateOp::Sum;
      if (t.metric_type != MetricTargetType::AverageValue && !per_pod) continue;
      out.push_back(finding(
          "gpu-threshold-beyond-range", t.query_where, scaled_object_subject(so),
          fmt::format("the query reads {}, which is at most {} per GPU, but the threshold is {}: "
                      "the load never reaches it, so the Deployment never scales up",
                      gauge->name, gauge->max, t.threshold),
          gauge->max == 1
              ? fmt::format("{} is a ratio: give the threshold as one (0.8 for 80%)", gauge->name)
              : fmt::format("{} is a percentage: give a threshold of at most 100", gauge->name)));
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
  gpu_threshold_beyond_range(view, out);
  for (const HorizontalPodAutoscalerSpec& hpa : view.config.hpas)
    replicas_beyond_pool_limits(view, "HorizontalPodAutoscaler", hpa.namespace_name, hpa.name,
                                hpa.scale_target, hpa.max_replicas, hpa.where, out);
  for (const ScaledObjectSpec& so : view.config.scaled_objects)
    replicas_beyond_pool_limits(view, "ScaledObject", so.namespace_name, so.name, so.scale_target,
                                so.max_replica_count, so.where, out);
}

}  // namespace fleetsim::lint
