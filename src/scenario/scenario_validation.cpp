#include "fleetsim/scenario/scenario_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "fleetsim/autoscaling/metric_names.hpp"
#include "fleetsim/autoscaling/promql.hpp"
#include "fleetsim/scenario/eksctl_decoder.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/nodepool_checks.hpp"
#include "fleetsim/scenario/trace_tail.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/service/exported_metrics.hpp"
#include "fleetsim/workload/job_trace.hpp"

namespace fleetsim {

namespace {

// Every metric an autoscaler reads must be one the simulation produces, under its own name or a
// scenario alias: otherwise the autoscaler never acts, silently.
void check_metric_name(std::string_view name, const SourceLocation& where, std::string_view field,
                       const MetricAliases& aliases) {
  if (is_simulated_metric(name) || aliases.contains(name)) return;
  std::vector<std::string_view> known(kSimulatedMetrics.begin(), kSimulatedMetrics.end());
  for (const auto& [alias, target] : aliases) known.push_back(alias);
  const std::optional<std::string_view> meaning = same_meaning_metric(name);
  throw ConfigError(
      where, std::string(field),
      fmt::format("metric \"{}\" is never produced in a simulation, so the autoscaler could not "
                  "act on it; fleetsim produces {}, or name your exporter's metric with "
                  "`metrics: {{aliases: {{{}: {}}}}}`{}",
                  name.substr(0, 80), fmt::join(known, ", "), name.substr(0, 80),
                  meaning ? *meaning : "<the fleetsim metric it stands for>",
                  did_you_mean(name, known)));
}

void check_autoscaler_metrics(const std::vector<HorizontalPodAutoscalerSpec>& hpas,
                              const std::vector<ScaledObjectSpec>& scaled_objects,
                              const MetricAliases& aliases) {
  for (const HorizontalPodAutoscalerSpec& hpa : hpas) {
    for (const MetricSpec& m : hpa.metrics) {
      if (m.source == MetricSourceType::Resource) continue;
      check_metric_name(m.name, m.name_where, "metric.name", aliases);
    }
  }
  for (const ScaledObjectSpec& so : scaled_objects) {
    for (const KedaTrigger& t : so.triggers) {
      if (t.type != KedaTriggerType::Prometheus) continue;
      for (const std::string& name : selected_metric_names(PromQuery::parse(t.query)))
        check_metric_name(name, t.query_where, "metadata.query", aliases);
    }
  }
}

// Where a Deployment's autoscaler was found, for the "already has one" message.
struct AutoscalerRef {
  std::string_view kind;  // "HorizontalPodAutoscaler" or "ScaledObject"
  std::string_view name;
  SourceLocation where;
};

// Each HPA and ScaledObject must scale a Deployment of the scenario's manifests in its own
// namespace, and a Deployment takes one autoscaler (two HPAs fight over its replicas; KEDA refuses
// a ScaledObject whose target already has an HPA).
void check_autoscaler_targets(const std::vector<HorizontalPodAutoscalerSpec>& hpas,
                              const std::vector<ScaledObjectSpec>& scaled_objects,
                              const std::vector<Workload>& workloads) {
  std::map<const Workload*, AutoscalerRef> scaled;
  auto check = [&](std::string_view kind, std::string_view name, std::string_view ns,
                   const CrossVersionObjectReference& target, const SourceLocation& where) {
    if (target.kind != "Deployment") {
      throw ConfigError(where, "spec.scaleTargetRef.kind",
                        fmt::format("{} \"{}\" scales a {}; fleetsim scales only Deployments", kind,
                                    name, target.kind.substr(0, 60)));
    }
    if (!target.api_version.empty() && target.api_version != "apps/v1") {
      throw ConfigError(
          where, "spec.scaleTargetRef.apiVersion",
          fmt::format("apiVersion \"{}\" is not supported for a Deployment; use apps/v1",
                      target.api_version.substr(0, 60)));
    }
    const Workload* match = nullptr;
    std::vector<std::string_view> names;
    for (const Workload& w : workloads) {
      if (w.kind != WorkloadKind::Deployment || w.namespace_name != ns) continue;
      names.push_back(w.name);
      if (w.name == target.name) match = &w;
    }
    if (match == nullptr) {
      throw ConfigError(where, "spec.scaleTargetRef.name",
                        fmt::format("no Deployment named \"{}\" in namespace {} in the "
                                    "scenario's manifests{}",
                                    target.name, ns, did_you_mean(target.name, names)));
    }
    auto [it, inserted] = scaled.emplace(match, AutoscalerRef{kind, name, where});
    if (!inserted) {
      throw ConfigError(
          where, "spec.scaleTargetRef.name",
          fmt::format("Deployment \"{}\" in namespace {} already has an autoscaler ({} \"{}\" "
                      "at {}); a Deployment takes one",
                      target.name, ns, it->second.kind, it->second.name,
                      it->second.where.to_string()));
    }
  };
  for (const auto& h : hpas)
    check("HorizontalPodAutoscaler", h.name, h.namespace_name, h.scale_target, h.where);
  for (const auto& so : scaled_objects)
    check("ScaledObject", so.name, so.namespace_name, so.scale_target, so.where);
}

// What each provisioner reads: the Cluster Autoscaler needs node groups and ignores NodePools;
// beside Karpenter and Auto Mode node groups keep their desired capacity.
void check_provisioner_inputs(const ScenarioConfig& config, WarningLog& warnings) {
  if (config.provisioner != ProvisionerKind::ClusterAutoscaler) return;
  if (config.node_groups.empty()) {
    throw ConfigError(config.provisioner_where, "provisioner",
                      "cluster-autoscaler resizes node groups: give an eksctl ClusterConfig with "
                      "managedNodeGroups or nodeGroups in manifests");
  }
  for (const NodePool& pool : config.nodepools)
    warnings.add(
        WarningCode::UnusedNodePool, pool.where, "NodePool",
        fmt::format("NodePool {} is not used: the provisioner is cluster-autoscaler", pool.name));
}

// Pods that request nothing pack without limit: the fleet they need is never bought.
void warn_best_effort_pods(const ScenarioConfig& config, WarningLog& warnings) {
  auto check = [&](const Workload& w) {
    if (!w.pod.spec.requests_nothing()) return;
    warnings.add(
        WarningCode::BestEffortPods, w.where,
        fmt::format("{} {}/{}: resources.requests", to_string(w.kind), w.namespace_name, w.name),
        fmt::format("the pods of {} {} request no CPU, memory or accelerator "
                    "(BestEffort): any number of them fit on a node, so no node is "
                    "ever bought for them and their cost and GPU figures mean nothing; "
                    "give its containers resources.requests",
                    to_string(w.kind), w.name));
  };
  for (const Workload& w : config.workloads) check(w);
  for (const ScriptedEvent& e : config.events)
    if (const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (const Workload& w : apply->workloads) check(w);
}

// The earliest a pod's probes can first let it be Ready, with its server up at once: the startup
// probe's initial delay, then the readiness probe's, then successThreshold passes a period apart.
SimDuration earliest_ready(const PodSpec& spec) {
  SimDuration at = spec.startup_probe ? spec.startup_probe->initial_delay : SimDuration{0};
  if (!spec.readiness_probe) return at;
  const ProbeTiming& r = *spec.readiness_probe;
  at = std::max(at, r.initial_delay);
  const SimDuration passes = saturating_mul(r.period, r.success_threshold - 1);
  return passes >= kForever - at ? kForever : at + passes;
}

// A probe that cannot pass within the run leaves its pods unready throughout, as Kubernetes
// would: every figure about them is then about pods that never serve.
void warn_unpassable_probes(const ScenarioConfig& config, WarningLog& warnings) {
  auto check = [&](const Workload& w) {
    const PodSpec& spec = w.pod.spec;
    const SimDuration need = earliest_ready(spec);
    if (need <= config.duration) return;
    const bool readiness = spec.readiness_probe.has_value();
    const std::string probe = readiness ? "readinessProbe" : "startupProbe";
    const std::string needed =
        need == kForever ? "more than the longest time fleetsim counts" : format_duration(need);
    warnings.add(
        WarningCode::ProbeNeverPasses, w.where,
        fmt::format("{} {}/{}: containers[].{}", to_string(w.kind), w.namespace_name, w.name,
                    probe),
        fmt::format("its pods cannot be Ready within the run ({}): the {} needs at least {} "
                    "(initialDelaySeconds{}) to pass, so they stay unready throughout, as in "
                    "Kubernetes",
                    format_duration(config.duration), probe, needed,
                    readiness ? " + periodSeconds × (successThreshold - 1)" : ""));
  };
  for (const Workload& w : config.workloads) check(w);
  for (const ScriptedEvent& e : config.events)
    if (const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (const Workload& w : apply->workloads) check(w);
}

// A run streams its job traces; reading them through here refuses a bad row before the run,
// and names the rows submitted after it ends.
void read_job_traces(const std::vector<JobSource>& sources, SimDuration duration,
                     WarningLog& warnings) {
  for (std::size_t i = 0; i < sources.size(); ++i) {
    JobTraceReader reader(sources[i].trace);
    TraceTail tail;
    while (const std::optional<JobArrival> job = reader.next())
      count_row(tail, job->submit.time_since_epoch(), job->line, duration);
    warn_rows_after_end(tail, sources[i].trace, fmt::format("jobs[{}].trace", i), duration,
                        warnings);
  }
}

}  // namespace

void validate_scenario(ScenarioConfig& config) {
  // Seeded with the reader's warnings, so that a field already warned about is not warned again.
  WarningLog warnings(std::move(config.warnings));
  check_autoscaler_targets(config.hpas, config.scaled_objects, config.workloads);
  check_autoscaler_metrics(config.hpas, config.scaled_objects, config.metric_aliases);
  check_node_groups(config.node_groups, *config.catalog);
  check_provisioner_inputs(config, warnings);
  check_against_nodepools(config, warnings);
  warn_best_effort_pods(config, warnings);
  warn_unpassable_probes(config, warnings);
  read_job_traces(config.job_sources, config.duration, warnings);
  config.warnings = warnings.take();
  // Reported in file order, so a user reads them alongside the manifests.
  std::stable_sort(config.warnings.begin(), config.warnings.end(),
                   [](const Warning& a, const Warning& b) {
                     return std::tie(a.where.file, a.where.line, a.where.col) <
                            std::tie(b.where.file, b.where.line, b.where.col);
                   });
}

}  // namespace fleetsim
