#include "fleetsim/scenario/workload_decoder.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"

namespace fleetsim {

namespace {

// The name prefix Kubernetes reserves for its own priority classes.
constexpr std::string_view kSystemPriorityPrefix = "system-";

// The checkpoint annotations, the pod template's over the object's. They mean something only to
// a pod that runs to completion (a Job's; a bare Pod's only as a job trace's template, which the
// loader tells apart), and the overhead only with an interval: otherwise a warning.
Checkpointing decode_checkpointing(WorkloadKind kind, const ObjectMeta& meta, const DecodedPod& pod,
                                   DecodeContext& ctx) {
  Checkpointing c;
  c.interval = pod.checkpoint_interval ? pod.checkpoint_interval : meta.checkpoint_interval;
  const auto overhead = pod.restart_overhead ? pod.restart_overhead : meta.restart_overhead;
  if (overhead) c.restart_overhead = *overhead;
  const auto warn = [&](std::string_view message) {
    ctx.warnings.add(WarningCode::CheckpointIgnored, meta.where, ctx.kind + ".metadata.annotations",
                     std::string(message));
  };
  if ((c.interval || overhead) && kind != WorkloadKind::Job && kind != WorkloadKind::Pod) {
    warn("fleetsim.io/checkpoint-interval and restart-overhead apply to Jobs and Pods; a " +
         std::string(to_string(kind)) + "'s pods run until deleted, so they have no effect");
    return {};
  }
  if (overhead && !c.interval) {
    warn(
        "fleetsim.io/restart-overhead has no effect without fleetsim.io/checkpoint-interval: "
        "a replacement starts over");
  }
  return c;
}

Workload base_workload(WorkloadKind kind, const ObjectMeta& meta, DecodedPod pod,
                       DecodeContext& ctx) {
  Workload w;
  w.kind = kind;
  w.name = meta.name;
  w.namespace_name = meta.namespace_name;
  w.where = meta.where;
  w.run_time = pod.run_time ? pod.run_time : meta.run_time;
  w.checkpointing = decode_checkpointing(kind, meta, pod, ctx);
  w.pod = std::move(pod.pod);
  return w;
}

// apps/v1 requires a selector, and the API server rejects one its template's labels do not
// satisfy; catching it here saves a confusing "no pods" simulation.
void check_selector(const YamlMap& spec, const Labels& template_labels, DecodeContext& ctx) {
  YamlValue selector = spec.require("selector");
  YamlMap s(selector);
  Labels match;
  if (auto labels = s.get("matchLabels")) match = decode_labels(*labels);
  if (match.empty() && !s.contains("matchExpressions")) {
    selector.fail("an empty selector is not allowed; give matchLabels");
  }
  for (const auto& [key, value] : match) {
    auto it = template_labels.find(key);
    if (it == template_labels.end() || it->second != value) {
      selector.fail(
          fmt::format("selector does not match template labels ({}={} is missing from "
                      "spec.template.metadata.labels)",
                      key, value));
    }
  }
  s.check_unread(ctx.warnings, ctx.kind, api::LabelSelector);  // matchExpressions
}

// A Deployment's or DaemonSet's template: its selector must match, and its pods run until
// deleted (restartPolicy Always, as the API server requires).
DecodedWorkload decode_long_running(WorkloadKind kind, const ObjectMeta& meta, YamlMap& spec,
                                    DecodeContext& ctx) {
  DecodedPod pod = decode_pod_template(spec.require("template"), ctx);
  check_selector(spec, pod.pod.labels, ctx);
  if (pod.restart_policy != RestartPolicy::Always) {
    throw ConfigError(pod.restart_policy_where, pod.restart_policy_field,
                      fmt::format("a {}'s pods must use restartPolicy Always", to_string(kind)));
  }
  PriorityRef priority = pod.priority;
  return {base_workload(kind, meta, std::move(pod), ctx), std::move(priority)};
}

// spec.strategy, validated as the API server does: maxSurge and maxUnavailable may not both be
// zero, and Recreate takes no rollingUpdate.
DeploymentStrategy decode_strategy(const YamlValue& value, DecodeContext& ctx) {
  DeploymentStrategy s;
  YamlMap m(value);
  if (auto type = m.get("type")) {
    const std::string text = type->as_string();
    if (text == "Recreate") {
      s.recreate = true;
    } else if (text != "RollingUpdate") {
      static constexpr std::array<std::string_view, 2> kTypes{"RollingUpdate", "Recreate"};
      type->fail(
          fmt::format("unknown strategy type \"{}\"; expected RollingUpdate or "
                      "Recreate{}",
                      text.substr(0, 40), did_you_mean(text, kTypes)));
    }
  }
  if (auto rolling = m.get("rollingUpdate")) {
    if (s.recreate) rolling->fail("a Recreate strategy takes no rollingUpdate");
    YamlMap r(*rolling);
    // Kubernetes caps maxUnavailable at 100% but not maxSurge (apps validation).
    if (auto v = r.get("maxSurge"))
      s.max_surge = decode_int_or_percent(*v, std::numeric_limits<std::int32_t>::max());
    if (auto v = r.get("maxUnavailable")) s.max_unavailable = decode_int_or_percent(*v);
    if (s.max_surge.value == 0 && s.max_unavailable.value == 0)
      rolling->fail("maxSurge and maxUnavailable cannot both be zero");
    r.check_unread(ctx.warnings, ctx.kind, api::RollingUpdateDeployment);
  }
  m.check_unread(ctx.warnings, ctx.kind, api::DeploymentStrategy);
  return s;
}

}  // namespace

DecodedWorkload decode_pod_manifest(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  DecodedPod pod = decode_pod(meta, manifest.require("spec"), ctx);
  PriorityRef priority = pod.priority;
  return {base_workload(WorkloadKind::Pod, meta, std::move(pod), ctx), std::move(priority)};
}

DecodedWorkload decode_deployment(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  YamlMap spec(manifest.require("spec"));
  DecodedWorkload out = decode_long_running(WorkloadKind::Deployment, meta, spec, ctx);
  if (auto replicas = spec.get("replicas")) {
    out.workload.replicas = static_cast<std::int32_t>(replicas->as_int(0, kMaxReplicas));
    out.workload.replicas_set = true;
  }
  if (auto strategy = spec.get("strategy")) out.workload.strategy = decode_strategy(*strategy, ctx);
  spec.check_unread(ctx.warnings, ctx.kind, api::DeploymentSpec);
  return out;
}

DecodedWorkload decode_job(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  YamlMap spec(manifest.require("spec"));
  DecodedPod pod = decode_pod_template(spec.require("template"), ctx);
  if (pod.restart_policy == RestartPolicy::Always) {
    throw ConfigError(
        pod.restart_policy_where, pod.restart_policy_field,
        "a Job's pods must use restartPolicy Never or OnFailure (Kubernetes rejects the "
        "default, Always)");
  }
  PriorityRef priority = pod.priority;
  DecodedWorkload out{base_workload(WorkloadKind::Job, meta, std::move(pod), ctx),
                      std::move(priority)};
  Workload& w = out.workload;
  if (auto parallelism = spec.get("parallelism")) {
    w.parallelism = static_cast<std::int32_t>(parallelism->as_int(0, kMaxReplicas));
  }
  if (auto completions = spec.get("completions")) {
    w.completions = static_cast<std::int32_t>(completions->as_int(0, kMaxReplicas));
  } else {
    // Kubernetes reads an unset completions with parallelism as a work queue: pods run until one
    // succeeds. fleetsim has no queue to drain, so it runs `parallelism` pods once each, which is
    // what such a Job costs when every worker finds work.
    w.completions = w.parallelism;
  }
  spec.check_unread(ctx.warnings, ctx.kind,
                    api::JobSpec);  // backoffLimit, activeDeadlineSeconds, ttl…, suspend
  return out;
}

DecodedWorkload decode_daemonset(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  YamlMap spec(manifest.require("spec"));
  DecodedWorkload out = decode_long_running(WorkloadKind::DaemonSet, meta, spec, ctx);
  out.workload.run_time.reset();  // daemons run for the node's life
  spec.check_unread(ctx.warnings, ctx.kind, api::DaemonSetSpec);
  return out;
}

PriorityClass decode_priority_class(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  PriorityClass pc;
  pc.name = meta.name;
  pc.where = meta.where;
  YamlValue value = manifest.require("value");
  pc.value = static_cast<std::int32_t>(value.as_int(std::numeric_limits<std::int32_t>::min(),
                                                    std::numeric_limits<std::int32_t>::max()));
  bool system = pc.name.starts_with(kSystemPriorityPrefix);
  if (system) {
    // Kubernetes lets only its own two classes use the prefix, with their own values.
    bool builtin =
        (pc.name == "system-node-critical" && pc.value == kSystemNodeCriticalPriority) ||
        (pc.name == "system-cluster-critical" && pc.value == kSystemClusterCriticalPriority);
    if (!builtin) {
      throw ConfigError(
          pc.where, "metadata.name",
          "priority class names with the \"system-\" prefix are reserved for Kubernetes");
    }
  } else if (pc.value > kHighestUserDefinablePriority) {
    value.fail(fmt::format("the value of a user priority class must be at most {}",
                           kHighestUserDefinablePriority));
  }
  if (auto global = manifest.get("globalDefault")) pc.global_default = global->as_bool();
  if (auto policy = manifest.get("preemptionPolicy"))
    pc.preemption_policy = decode_preemption_policy(*policy);
  manifest.ignore({"description"});
  return pc;
}

}  // namespace fleetsim
